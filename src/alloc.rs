//! Bytes the core holds: the global allocator, counting. A search's memory
//! budget is a bound on what it holds beyond what was held when it began
//! (`Searcher::held`), measured here rather than estimated, since what a
//! search keeps (cuboids, sets, graphs) depends on the data as much as on
//! the lattice. One relaxed atomic add per allocation and free. Two searches
//! running at once in one process count each other's bytes.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};

static LIVE: AtomicUsize = AtomicUsize::new(0);
/// The most `LIVE` has been since the last `mark`.
static PEAK: AtomicUsize = AtomicUsize::new(0);

/// Freed memory is given back to the kernel (`give_back`) when a piece of
/// work freed at least this much: the system allocator keeps what is freed
/// for reuse, but the Polars that Python loads has an allocator of its own
/// and never reuses it, so a search's or a preparation's freed working
/// memory stayed resident through the release that follows (70-85 MiB after
/// searching 1-10M rows). Giving back costs 0.3-2.5 ms, too much for the
/// small searches that free little.
const GIVE_BACK_FROM: usize = 64 << 20;

/// The system allocator, counting the bytes it hands out and takes back.
pub struct Counting;

/// A block resized by the kernel (`remap`, advised whole), or one of the
/// system allocator where blocks are not mapped here (`placed`: off Linux),
/// asks for transparent huge pages (`MADV_HUGEPAGE`, for systems where they
/// are given on request only) for the 2 MiB pages lying wholly inside it,
/// from this size up: a large vector written once otherwise takes a page
/// fault every 4 KiB. Such vectors are written whole, so the larger pages
/// add no resident memory.
const HUGE_FROM: usize = 2 << 20;

/// Advise huge pages for the 2 MiB pages lying wholly inside `size` bytes
/// from `p`, when the allocation is large.
#[inline]
fn huge(p: *mut u8, size: usize) {
    if size >= HUGE_FROM && !p.is_null() {
        let page = 2usize << 20;
        let start = (p as usize).div_ceil(page) * page;
        let end = (p as usize + size) / page * page;
        if end > start {
            // SAFETY: advice on pages inside this allocation only
            unsafe {
                libc::madvise(start as *mut libc::c_void, end - start, libc::MADV_HUGEPAGE);
            }
        }
    }
}

/// Counts `size` bytes handed out, and raises `PEAK` past them (a shared
/// read per allocation; a write only at a new peak).
#[inline]
fn took(size: usize) {
    let now = LIVE.fetch_add(size, Relaxed) + size;
    if now > PEAK.load(Relaxed) {
        PEAK.fetch_max(now, Relaxed);
    }
}

// SAFETY: a block of `PLACED_FROM` bytes or more is mapped and unmapped
// here (`placed`, by its size alone, so every call finds it so); every
// other is passed to the system allocator unchanged. The counter is only
// arithmetic beside it.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let p = match placed(layout.size()) {
            true => reuse(layout).unwrap_or_else(|| map(layout)),
            false => {
                let p = System.alloc(layout);
                huge(p, layout.size());
                p
            }
        };
        if !p.is_null() {
            took(layout.size());
        }
        p
    }
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        // fresh mappings are zeroed by the kernel
        let p = match placed(layout.size()) {
            true => match reuse(layout) {
                Some(p) => {
                    std::ptr::write_bytes(p, 0, layout.size());
                    p
                }
                None => map(layout),
            },
            false => {
                let p = System.alloc_zeroed(layout);
                huge(p, layout.size());
                p
            }
        };
        if !p.is_null() {
            took(layout.size());
        }
        p
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        match placed(layout.size()) {
            true => release(ptr, layout.size()),
            false => System.dealloc(ptr, layout),
        }
        LIVE.fetch_sub(layout.size(), Relaxed);
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let new = Layout::from_size_align_unchecked(new_size, layout.align());
        let p = match (placed(layout.size()), placed(new_size)) {
            (false, false) => {
                let p = System.realloc(ptr, layout, new_size);
                huge(p, new_size);
                p
            }
            (true, true) => remap(ptr, layout, new_size),
            // into or out of the mapped sizes: moved
            (from, _) => {
                let p = self.alloc(new);
                if !p.is_null() {
                    std::ptr::copy_nonoverlapping(ptr, p, layout.size().min(new_size));
                    match from {
                        true => release(ptr, layout.size()),
                        false => System.dealloc(ptr, layout),
                    }
                    LIVE.fetch_sub(layout.size(), Relaxed);
                }
                return p;
            }
        };
        if !p.is_null() {
            LIVE.fetch_sub(layout.size(), Relaxed);
            took(new_size);
        }
        p
    }
}

/// Blocks from this size up are mappings of their own (Linux), starting on
/// a huge page and taking whole ones, advised as such (`MADV_HUGEPAGE`): a
/// vector of 1-2 MiB (a column's codes at 300,000 rows) lay across 4 KiB
/// pages only, each a page fault when first written, and a larger one had
/// huge pages only where its chunk happened to align (bench/README, "F0
/// against rows"). At most half of such a mapping is slack, resident only
/// where written. Mapped here rather than aligned by glibc, whose arenas
/// would keep freed, advised pages for its small blocks (which then fault
/// whole huge pages in). Freed, a mapping is kept for reuse (`release`) or
/// goes back to the kernel at once.
const PLACED_FROM: usize = 1 << 20;

/// Blocks from this size up that are written once, whole, and freed by
/// work repeated on tables of their size (a column's codes, the rows'
/// keys) are reserved `PLACED_FROM` bytes exactly (`capacity_for`): such a
/// block is mapped here on small pages and kept when freed. glibc maps
/// blocks of these sizes itself and unmaps them when freed, or takes them
/// from arenas it trims, so a table's codes of 0.4 MB a column (100,000
/// rows) faulted every page in again at each preparation (bench/README,
/// "F0 against rows"). Not every block of these sizes: a search's rollups
/// grow and free many, and mapping each (kept by their size) cost a
/// search 2-3x its page faults; nor on huge pages, zeroed whole.
const WIDENED_FROM: usize = 256 << 10;

/// `n` copies of `value` in a block reserved as `capacity_for` says; as
/// `vec!` where it reserves `n` (zeros then come from the kernel, unwritten).
pub fn filled<T: Clone>(n: usize, value: T) -> Vec<T> {
    let capacity = capacity_for(n, std::mem::size_of::<T>());
    if capacity == n {
        return vec![value; n];
    }
    let mut v = Vec::with_capacity(capacity);
    v.resize(n, value);
    v
}

/// The capacity to reserve for `n` values of `size` bytes that are
/// written once, whole (see `WIDENED_FROM`).
pub fn capacity_for(n: usize, size: usize) -> usize {
    let bytes = n.saturating_mul(size);
    let exact = size > 0 && PLACED_FROM.is_multiple_of(size);
    if cfg!(target_os = "linux") && exact && (WIDENED_FROM..PLACED_FROM).contains(&bytes) {
        PLACED_FROM / size
    } else {
        n
    }
}

const HUGE_PAGE: usize = 2 << 20;

/// Whether a block of `size` bytes is mapped here.
#[inline]
fn placed(size: usize) -> bool {
    cfg!(target_os = "linux") && size >= PLACED_FROM
}

/// The bytes mapped for a block of `size`: whole huge pages, but for a
/// block of `PLACED_FROM` bytes exactly (`capacity_for`), which is mapped
/// as it is.
#[inline]
fn mapped(size: usize) -> usize {
    if size == PLACED_FROM {
        return size;
    }
    size.div_ceil(HUGE_PAGE) * HUGE_PAGE
}

#[cfg(target_os = "linux")]
unsafe fn map(layout: Layout) -> *mut u8 {
    use libc::{c_void, MAP_ANONYMOUS, MAP_FAILED, MAP_PRIVATE, PROT_READ, PROT_WRITE};
    if layout.size() == PLACED_FROM && layout.align() <= 4096 {
        // on small pages: only what is written becomes resident, where a
        // huge page is zeroed whole when first touched (a first
        // preparation of 100,000 rows took 6-13 ms on glibc's pages, 11-20
        // on huge ones)
        let flags = MAP_PRIVATE | MAP_ANONYMOUS;
        let prot = PROT_READ | PROT_WRITE;
        let p = libc::mmap(std::ptr::null_mut(), PLACED_FROM, prot, flags, -1, 0);
        return if p == MAP_FAILED {
            std::ptr::null_mut()
        } else {
            p as *mut u8
        };
    }
    let align = HUGE_PAGE.max(layout.align());
    let Some(span) = mapped(layout.size()).checked_add(align) else {
        return std::ptr::null_mut();
    };
    let prot = PROT_READ | PROT_WRITE;
    let p = libc::mmap(
        std::ptr::null_mut(),
        span,
        prot,
        MAP_PRIVATE | MAP_ANONYMOUS,
        -1,
        0,
    );
    if p == MAP_FAILED {
        return std::ptr::null_mut();
    }
    // the aligned part kept, the slack before and after it unmapped
    let (at, end) = (p as usize, p as usize + span);
    let start = at.div_ceil(align) * align;
    let stop = start + mapped(layout.size());
    if start > at {
        libc::munmap(p, start - at);
    }
    if end > stop {
        libc::munmap(stop as *mut c_void, end - stop);
    }
    libc::madvise(start as *mut c_void, stop - start, libc::MADV_HUGEPAGE);
    start as *mut u8
}

#[cfg(target_os = "linux")]
unsafe fn unmap(ptr: *mut u8, size: usize) {
    libc::munmap(ptr as *mut libc::c_void, mapped(size));
}

/// Freed mappings kept for the next block of their size, up to `KEPT_MAX`
/// bytes in `KEPT_SLOTS`: work that frees and takes blocks of one size in
/// turn (a LazyFrame's batches, a column's codes of 1.9 MB each) would
/// otherwise fault every page of a fresh mapping in each time, where
/// glibc's arenas had kept the pages. `give_back` unmaps them.
const KEPT_MAX: usize = 64 << 20;
const KEPT_SLOTS: usize = 32;

/// (address, bytes mapped) of each kept mapping; 0 bytes: an empty slot.
/// The kept mappings: (address, bytes mapped, when kept) in each slot, 0
/// bytes an empty one; and the count of mappings kept so far.
struct Kept {
    slots: [(usize, usize, u64); KEPT_SLOTS],
    kept: u64,
}

static KEPT: std::sync::Mutex<Kept> = std::sync::Mutex::new(Kept {
    slots: [(0, 0, 0); KEPT_SLOTS],
    kept: 0,
});

fn kept() -> std::sync::MutexGuard<'static, Kept> {
    // nothing panics while it is held: a poisoned lock holds whole slots
    KEPT.lock().unwrap_or_else(|e| e.into_inner())
}

/// A kept mapping of `layout`'s size and alignment, taken.
fn reuse(layout: Layout) -> Option<*mut u8> {
    let size = mapped(layout.size());
    let mut kept = kept();
    let slot = kept
        .slots
        .iter_mut()
        .find(|(at, n, _)| *n == size && *at % layout.align() == 0)?;
    let at = std::mem::take(slot).0;
    Some(at as *mut u8)
}

/// A mapped block freed: kept for reuse, in place of the mappings kept
/// longest where there is no room (work that moves on to blocks of other
/// sizes, a table of another size, keeps those rather than the old ones),
/// else unmapped.
unsafe fn release(ptr: *mut u8, size: usize) {
    let n = mapped(size);
    if n > KEPT_MAX {
        return unmap(ptr, size);
    }
    let gone;
    {
        let mut kept = kept();
        gone = make_room(&mut kept.slots, n);
        kept.kept += 1;
        let stamp = kept.kept;
        if let Some(slot) = kept.slots.iter_mut().find(|s| s.1 == 0) {
            *slot = (ptr as usize, n, stamp);
        }
    }
    for (at, m) in gone {
        if m > 0 {
            unmap(at as *mut u8, m);
        }
    }
}

/// Empties the slots kept longest until a mapping of `n` bytes fits (a
/// slot free, `KEPT_MAX` not passed); the mappings taken out, to unmap.
fn make_room(
    slots: &mut [(usize, usize, u64); KEPT_SLOTS],
    n: usize,
) -> [(usize, usize); KEPT_SLOTS] {
    let mut gone = [(0usize, 0usize); KEPT_SLOTS];
    let mut held: usize = slots.iter().map(|s| s.1).sum();
    let mut i = 0;
    while held + n > KEPT_MAX || slots.iter().all(|s| s.1 > 0) {
        let Some(oldest) = (0..KEPT_SLOTS)
            .filter(|&j| slots[j].1 > 0)
            .min_by_key(|&j| slots[j].2)
        else {
            break; // (none: n fits an empty cache)
        };
        let (at, m, _) = std::mem::take(&mut slots[oldest]);
        held -= m;
        gone[i] = (at, m);
        i += 1;
    }
    gone
}

/// Unmaps every kept mapping.
fn unmap_kept() {
    let taken = std::mem::replace(&mut kept().slots, [(0, 0, 0); KEPT_SLOTS]);
    for (at, n, _) in taken {
        if n > 0 {
            // SAFETY: a mapping of `n` bytes no block holds any longer
            unsafe { unmap(at as *mut u8, n) };
        }
    }
}

/// A mapped block resized: in place when its huge pages hold `new_size`,
/// else moved by the kernel (`mremap`, no copy) where that keeps its
/// alignment, else copied to a new mapping. The kernel resizes a block
/// held as one mapping in its books only, and advice for part of a mapping
/// splits it there: a resized block is advised whole (the kernel gives huge
/// pages only where whole ones lie inside it, as advice for those alone
/// would), and one held in pieces anyway is copied.
#[cfg(target_os = "linux")]
unsafe fn remap(ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
    let (old, new) = (mapped(layout.size()), mapped(new_size));
    if old == new {
        return ptr;
    }
    if layout.align() <= 4096 {
        let p = libc::mremap(ptr as *mut libc::c_void, old, new, libc::MREMAP_MAYMOVE);
        if p != libc::MAP_FAILED {
            if new >= HUGE_FROM {
                libc::madvise(p, new, libc::MADV_HUGEPAGE);
            }
            return p as *mut u8;
        }
    }
    let p = map(Layout::from_size_align_unchecked(new_size, layout.align()));
    if !p.is_null() {
        std::ptr::copy_nonoverlapping(ptr, p, layout.size().min(new_size));
        release(ptr, layout.size());
    }
    p
}

#[cfg(not(target_os = "linux"))]
unsafe fn map(_: Layout) -> *mut u8 {
    unreachable!("blocks are mapped on Linux only")
}

#[cfg(not(target_os = "linux"))]
unsafe fn unmap(_: *mut u8, _: usize) {
    unreachable!("blocks are mapped on Linux only")
}

#[cfg(not(target_os = "linux"))]
unsafe fn remap(_: *mut u8, _: Layout, _: usize) -> *mut u8 {
    unreachable!("blocks are mapped on Linux only")
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// Bytes allocated by the core and not yet freed, on every thread.
pub fn live() -> usize {
    LIVE.load(Relaxed)
}

/// Begins a piece of work whose freed memory `give_back` returns.
/// Two pieces at once on two threads share one peak: a mark on one resets
/// what the other had reached, so the other may not give back what it
/// freed (memory kept, as before this existed), or give back what the
/// first freed (a trim, which other threads wait on for 0.3-2.5 ms).
pub fn mark() {
    PEAK.store(live(), Relaxed);
}

/// Ends a piece of work begun by `mark`: when it freed `GIVE_BACK_FROM`
/// or more, the system allocator's free pages go back to the kernel.
/// Returns whether they did.
pub fn give_back() -> bool {
    let freed = PEAK.load(Relaxed).saturating_sub(live());
    if freed < GIVE_BACK_FROM {
        return false;
    }
    unmap_kept();
    trim();
    true
}

#[cfg(all(target_os = "linux", target_env = "gnu"))]
fn trim() {
    // SAFETY: glibc's malloc_trim only releases pages no allocation holds
    unsafe {
        libc::malloc_trim(0);
    }
}

#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
fn trim() {}

/// The process's resident bytes (Linux: the second field of
/// `/proc/self/statm`, in pages), where known.
/// Freed memory the system allocator keeps for reuse stays resident, so a
/// search that churns through large sets (Cube Incognito's cuboids) can be
/// resident well past what it holds: the budget is read against both.
/// Every search reads it when it starts: `statm` is a few numbers where
/// `status` is fifty lines the kernel formats (signal masks, CPU lists),
/// which took a sixth of the time of a search of a small table.
pub fn resident() -> Option<usize> {
    use std::io::Read;
    let mut text = [0u8; 128];
    let mut file = std::fs::File::open("/proc/self/statm").ok()?;
    let n = file.read(&mut text).ok()?;
    let pages: usize = std::str::from_utf8(&text[..n])
        .ok()?
        .split_ascii_whitespace()
        .nth(1)?
        .parse()
        .ok()?;
    // SAFETY: sysconf only reads a system setting
    let page = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
    usize::try_from(page).ok().map(|p| pages * p)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_what_is_held() {
        let before = live();
        let v = vec![0u8; 64 << 20];
        // other tests allocate on other threads meanwhile: a margin
        assert!(live() >= before + (60 << 20), "{} {}", live(), before);
        drop(v);
        assert!(live() < before + (60 << 20) + (256 << 20));
    }

    #[test]
    fn the_peak_counts_what_is_held() {
        // other tests allocate and free meanwhile (and nothing else marks):
        // only that the peak reached what this one held is sure
        mark();
        let v = std::hint::black_box(vec![1u8; 96 << 20]);
        assert!(PEAK.load(Relaxed) >= 96 << 20);
        assert_eq!(v[12345], 1);
    }

    #[test]
    fn large_blocks_are_mapped_on_huge_pages_and_keep_their_bytes_when_resized() {
        // from under PLACED_FROM into it, within it, and back out of it
        let mut v: Vec<u32> = (0..200_000).collect();
        v.extend(200_000..400_000u32); // 1.6 MB: moved into a mapping
        if cfg!(target_os = "linux") {
            assert_eq!(v.as_ptr() as usize % HUGE_PAGE, 0);
        }
        v.extend(400_000..1_500_000u32); // 6 MB: remapped
        assert!(v.iter().enumerate().all(|(i, &x)| x == i as u32));
        v.truncate(100_000);
        v.shrink_to_fit(); // 400 KB: moved out of it
        assert!(v.iter().enumerate().all(|(i, &x)| x == i as u32));
        // zeroed, also where a freed mapping of its size is reused
        let dirty = std::hint::black_box(vec![7u64; 1_700_000]);
        drop(dirty);
        let z = std::hint::black_box(vec![0u64; 1_700_000]);
        assert!(z.iter().all(|&x| x == 0));
        unmap_kept();
        // of a large alignment, and resized in place
        let layout = Layout::from_size_align(3 << 20, 8192).unwrap();
        // SAFETY: allocated, written, resized and freed with its layout
        unsafe {
            let p = ALLOCATOR.alloc(layout);
            assert!(!p.is_null() && (p as usize).is_multiple_of(8192));
            std::ptr::write_bytes(p, 7, layout.size());
            let q = ALLOCATOR.realloc(p, layout, (3 << 20) + 100);
            assert_eq!(q, p, "the mapping's huge pages hold it");
            let grown = Layout::from_size_align((3 << 20) + 100, 8192).unwrap();
            let r = ALLOCATOR.realloc(q, grown, 9 << 20);
            assert!((r as usize).is_multiple_of(8192) && *r.add((3 << 20) - 1) == 7);
            ALLOCATOR.dealloc(r, Layout::from_size_align(9 << 20, 8192).unwrap());
        }
    }

    #[test]
    fn blocks_written_once_are_widened_to_a_mapping_kept_on_small_pages() {
        // 100,000 codes (400 KB) reserve PLACED_FROM bytes exactly
        let codes = filled(100_000, 7u32);
        assert_eq!(codes.len(), 100_000);
        if cfg!(target_os = "linux") {
            assert_eq!(codes.capacity() * 4, PLACED_FROM);
            assert_eq!(mapped(PLACED_FROM), PLACED_FROM);
        }
        // smaller, larger and odd-sized values are reserved as asked
        assert_eq!(capacity_for(50_000, 4), 50_000);
        assert_eq!(capacity_for(300_000, 4), 300_000);
        assert_eq!(capacity_for(30_000, 12), 30_000);
        // grown past it (moved to huge pages), shrunk back, values kept
        let mut v = codes;
        v.extend(std::iter::repeat_n(8u32, 400_000));
        assert!(v[..100_000].iter().all(|&x| x == 7) && v[100_000..].iter().all(|&x| x == 8));
        v.truncate(262_144);
        v.shrink_to_fit();
        assert!(v[..100_000].iter().all(|&x| x == 7) && v[100_000..].iter().all(|&x| x == 8));
        drop(v);
        // freed, kept, and taken again zeroed
        let z = filled(200_000, 0u32);
        assert!(z.iter().all(|&x| x == 0));
    }

    #[test]
    fn the_mappings_kept_longest_give_way_to_new_ones() {
        // every slot full: the oldest one gives way
        let mut slots = [(0usize, 0usize, 0u64); KEPT_SLOTS];
        for (j, s) in slots.iter_mut().enumerate() {
            *s = (4096 * (j + 1), 1 << 20, 100 - j as u64);
        }
        let gone = make_room(&mut slots, 6 << 20);
        assert_eq!(gone[0], (4096 * KEPT_SLOTS, 1 << 20));
        assert_eq!(gone[1..].iter().filter(|g| g.1 > 0).count(), 0);
        assert_eq!(slots.iter().filter(|s| s.1 == 0).count(), 1);
        // past KEPT_MAX bytes: the oldest until it fits
        let mut slots = [(0usize, 0usize, 0u64); KEPT_SLOTS];
        slots[3] = (1 << 30, 30 << 20, 7);
        slots[9] = (2 << 30, 30 << 20, 5);
        let gone = make_room(&mut slots, 6 << 20);
        assert_eq!(gone[0], (2 << 30, 30 << 20));
        assert_eq!((slots[3].1, slots[9].1), (30 << 20, 0));
        // room enough: nothing goes
        let gone = make_room(&mut slots, 1 << 20);
        assert!(gone.iter().all(|g| g.1 == 0));
    }

    #[test]
    fn blocks_taken_resized_and_freed_on_many_threads_keep_their_bytes() {
        // sizes about every boundary (WIDENED_FROM, PLACED_FROM exactly,
        // huge pages), alignments up to 8 KiB, grown and shrunk in place,
        // by the kernel and by copies, freed into and taken from the kept
        // mappings by 6 threads at once (one emptying them now and then);
        // each block's bytes checked
        let sizes = [
            200 << 10,
            WIDENED_FROM,
            PLACED_FROM - 8,
            PLACED_FROM,
            PLACED_FROM + 8,
            HUGE_PAGE,
            HUGE_PAGE + 4096,
            3 << 20,
            5 << 20,
        ];
        let threads: Vec<_> = (0..6u64)
            .map(|t| {
                std::thread::spawn(move || {
                    let mut seed = 0x9E37_79B9_7F4A_7C15u64 ^ (t + 1);
                    let mut next = move || {
                        seed ^= seed << 13;
                        seed ^= seed >> 7;
                        seed ^= seed << 17;
                        seed
                    };
                    let mut held: Vec<(*mut u8, Layout, u8)> = Vec::new();
                    for step in 0..1_500u32 {
                        let r = next();
                        if t == 0 && step % 100 == 0 {
                            unmap_kept(); // as give_back does, beside the others
                        }
                        if held.len() < 8 && r % 3 != 0 {
                            let size = sizes[(r >> 8) as usize % sizes.len()];
                            let align = [8, 4096, 8192][(r >> 16) as usize % 3];
                            let layout = Layout::from_size_align(size, align).unwrap();
                            let fill = (step % 251) as u8;
                            // SAFETY: a layout of non-zero size, written whole
                            let p = unsafe {
                                if r & 1 == 0 {
                                    let p = ALLOCATOR.alloc_zeroed(layout);
                                    assert!(!p.is_null());
                                    let s = std::slice::from_raw_parts(p, size);
                                    assert!(s.iter().all(|&b| b == 0));
                                    p
                                } else {
                                    ALLOCATOR.alloc(layout)
                                }
                            };
                            assert!(!p.is_null() && (p as usize).is_multiple_of(align));
                            // SAFETY: the block just taken
                            unsafe { std::ptr::write_bytes(p, fill, size) };
                            held.push((p, layout, fill));
                        } else if !held.is_empty() {
                            let i = (r >> 24) as usize % held.len();
                            let (p, layout, fill) = held.swap_remove(i);
                            // SAFETY: a block taken above with `layout`
                            let s = unsafe { std::slice::from_raw_parts(p, layout.size()) };
                            assert!(s.iter().all(|&b| b == fill), "thread {t} step {step}");
                            if r % 5 == 0 {
                                let new = sizes[(r >> 32) as usize % sizes.len()];
                                // SAFETY: resized with its layout; bytes kept up to the
                                // smaller size, then written whole
                                unsafe {
                                    let q = ALLOCATOR.realloc(p, layout, new);
                                    assert!(
                                        !q.is_null() && (q as usize).is_multiple_of(layout.align())
                                    );
                                    let kept =
                                        std::slice::from_raw_parts(q, layout.size().min(new));
                                    assert!(kept.iter().all(|&b| b == fill));
                                    std::ptr::write_bytes(q, fill, new);
                                    let grown =
                                        Layout::from_size_align(new, layout.align()).unwrap();
                                    held.push((q, grown, fill));
                                }
                            } else {
                                // SAFETY: freed with the layout it was taken with
                                unsafe { ALLOCATOR.dealloc(p, layout) };
                            }
                        }
                    }
                    for (p, layout, fill) in held {
                        // SAFETY: as above
                        unsafe {
                            assert_eq!(*p.add(layout.size() - 1), fill);
                            ALLOCATOR.dealloc(p, layout);
                        }
                    }
                })
            })
            .collect();
        for t in threads {
            t.join().unwrap();
        }
        give_back();
    }

    #[test]
    fn a_block_the_kernel_holds_in_pieces_resizes_all_the_same() {
        // Advice for part of a mapping splits it in the kernel's books (a
        // block grown by the kernel from 1 MiB on small pages past two huge
        // pages gets advice for the huge pages inside it), and the kernel
        // moves one mapping only: a resize that had to move such a block
        // failed (a null pointer, which Rust answers with an abort; a string
        // doubling from 1 MiB past 4 MiB, as a large hierarchy's JSON does
        // when it is pickled). Here the split is made by advice for the
        // block's first page, and a page mapped right after the block makes
        // the resize move it.
        let layout = Layout::from_size_align(4 << 20, 8).unwrap();
        // SAFETY: a block taken here, written within its size, resized
        // with its layout and freed once; the guard is a page of its own
        unsafe {
            let p = ALLOCATOR.alloc(layout);
            assert!(!p.is_null());
            std::ptr::write_bytes(p, 7, layout.size());
            let advice = libc::madvise(p as *mut libc::c_void, 4096, libc::MADV_NOHUGEPAGE);
            assert_eq!(advice, 0);
            let guard = libc::mmap(
                p.add(mapped(layout.size())) as *mut libc::c_void,
                4096,
                libc::PROT_READ,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_FIXED_NOREPLACE,
                -1,
                0,
            );
            let q = ALLOCATOR.realloc(p, layout, 8 << 20);
            assert!(!q.is_null());
            let kept = std::slice::from_raw_parts(q, layout.size());
            assert!(kept.iter().all(|&b| b == 7));
            ALLOCATOR.dealloc(q, Layout::from_size_align(8 << 20, 8).unwrap());
            if guard != libc::MAP_FAILED {
                libc::munmap(guard, 4096);
            }
        }
    }

    #[test]
    fn reads_what_is_resident() {
        // other tests free memory meanwhile: only what this one holds (and
        // has written, so resident) is sure
        let v = std::hint::black_box(vec![1u8; 64 << 20]);
        let r = resident().expect("Linux");
        assert!(r >= 64 << 20, "{r}");
        assert_eq!(v[12345], 1);
        // the kernel's own figure in `status`, read after: the two within
        // what other tests may allocate meanwhile
        let status = std::fs::read_to_string("/proc/self/status").unwrap();
        let kib: usize = (status.lines().find(|l| l.starts_with("VmRSS:")))
            .and_then(|l| l.split_whitespace().nth(1))
            .and_then(|v| v.parse().ok())
            .unwrap();
        assert!((kib << 10).abs_diff(r) < 256 << 20, "{r} {kib} KiB");
    }
}
