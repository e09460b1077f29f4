//! Core work run on rayon's pool while the caller's thread hears Ctrl-C.
//!
//! A search splits reads of a few thousand rows over both cores
//! (`rayon::join`). From a thread outside the pool (Python's) every such
//! join is handed to the pool and waits for a sleeping worker to wake, which
//! cost more than the split saves; from a pool thread it is a push on that
//! thread's own queue. So the work runs on the pool. Python hears signals
//! on its main thread only: that thread, the GIL released, waits for the
//! work and looks at signals every `every`, raising `stop` (which the work's
//! progress reads) with the signal's error kept in `failure`.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{mpsc, Mutex};
use std::time::Duration;

use pyo3::prelude::*;

use super::error::without_gil;

pub fn on_pool<T: Send>(
    py: Python<'_>,
    every: Duration,
    stop: &AtomicBool,
    failure: &Mutex<Option<PyErr>>,
    f: impl FnOnce() -> crate::Result<T> + Send,
) -> PyResult<crate::Result<T>> {
    // already on the pool (a progress callable that searches): waiting here
    // could hold the only worker its own work needs
    if rayon::current_thread_index().is_some() {
        return without_gil(py, f);
    }
    without_gil(py, || {
        let (tx, rx) = mpsc::channel();
        let out = rayon::in_place_scope(|scope| {
            scope.spawn(move |_| {
                // a panic drops `tx`; the scope raises it again at its end
                let _ = tx.send(f());
            });
            loop {
                match rx.recv_timeout(every) {
                    Ok(out) => return Some(out),
                    Err(mpsc::RecvTimeoutError::Disconnected) => return None,
                    Err(mpsc::RecvTimeoutError::Timeout) => Python::attach(|py| {
                        if let Err(e) = py.check_signals() {
                            failure.lock().expect("signal lock").get_or_insert(e);
                            stop.store(true, Ordering::Relaxed);
                        }
                    }),
                }
            }
        });
        out.expect("work that sent nothing panicked, and its scope raised the panic")
    })
}

/// `f` run on rayon's pool, this thread waiting (inline when already on
/// it): the pool's joins and parallel iterators inside `f` then start on a
/// warm pool, where from outside each would wait for a worker to wake. A
/// panic in `f` is raised again here.
pub fn in_pool<T: Send>(f: impl FnOnce() -> T + Send) -> T {
    if rayon::current_thread_index().is_some() {
        return f();
    }
    let mut out = None;
    rayon::in_place_scope(|scope| scope.spawn(|_| out = Some(f())));
    out.expect("the scope ends once its work has")
}
