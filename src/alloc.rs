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

/// Allocations from this size up ask the kernel for transparent huge pages
/// (`MADV_HUGEPAGE`, for systems where they are given on request only): a
/// large vector written once (a column's codes, the rows' keys) otherwise
/// takes a page fault every 4 KiB, a sixth of preparing 10M rows' F0. Such
/// vectors are written whole, so the larger pages add no resident memory
/// (peak RSS measured the same). From the size of one huge page: a column's
/// codes at 1M rows (4 MB) faulted page by page from 8 MiB on, and cost a
/// quarter of preparing the table (bench/README, "F0 against rows").
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

// SAFETY: every call is passed to the system allocator unchanged; the
// counter is only arithmetic beside it.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let p = System.alloc(layout);
        huge(p, layout.size());
        if !p.is_null() {
            took(layout.size());
        }
        p
    }
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        let p = System.alloc_zeroed(layout);
        huge(p, layout.size());
        if !p.is_null() {
            took(layout.size());
        }
        p
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        System.dealloc(ptr, layout);
        LIVE.fetch_sub(layout.size(), Relaxed);
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let p = System.realloc(ptr, layout, new_size);
        huge(p, new_size);
        if !p.is_null() {
            LIVE.fetch_sub(layout.size(), Relaxed);
            took(new_size);
        }
        p
    }
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

/// The process's resident bytes (Linux: `VmRSS` in `/proc/self/status`),
/// where known.
/// Freed memory the system allocator keeps for reuse stays resident, so a
/// search that churns through large sets (Cube Incognito's cuboids) can be
/// resident well past what it holds: the budget is read against both.
pub fn resident() -> Option<usize> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmRSS:"))?;
    let kib: usize = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib << 10)
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
    fn reads_what_is_resident() {
        // other tests free memory meanwhile: only what this one holds (and
        // has written, so resident) is sure
        let v = std::hint::black_box(vec![1u8; 64 << 20]);
        let r = resident().expect("Linux");
        assert!(r >= 64 << 20, "{r}");
        assert_eq!(v[12345], 1);
    }
}
