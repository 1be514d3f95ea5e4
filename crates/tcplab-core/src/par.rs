// SPDX-License-Identifier: MIT OR Apache-2.0
//! Two tasks at once, for the steps of a large scenario that are mostly
//! hash probes and first touches of fresh memory (checking a million
//! nodes' names, building the links beside the flows, the links table
//! beside the flows table). Each task computes what it would alone, so the
//! result never depends on whether a second thread was used.

/// A scenario of at least this many flows and links (or nodes, or link
/// directions) uses a second thread where it can: below it a thread costs
/// more than it saves.
pub const LARGE: usize = 20_000;

/// `a()` on a thread of its own while this one runs `b()`; both here, in
/// turn, when no thread can be had. A panic in either (an
/// [`crate::alloc::OutOfMemory`] among them) continues in the caller.
pub fn both<A, B>(a: impl FnOnce() -> A + Send, b: impl FnOnce() -> B) -> (A, B)
where
    A: Send,
{
    // `a` waits in a slot that whichever side runs it takes it from: the
    // thread, or this one when the thread could not be started.
    let slot = std::sync::Mutex::new(Some(a));
    let take = || slot.lock().ok().and_then(|mut a| a.take());
    std::thread::scope(|s| {
        let spawned = std::thread::Builder::new()
            .name("tcplab-build".into())
            .spawn_scoped(s, || take().map(|a| a()));
        let b = b();
        let a = match spawned.map(|thread| thread.join()) {
            Ok(Ok(a)) => a,
            Ok(Err(panic)) => std::panic::resume_unwind(panic),
            Err(_) => None,
        };
        let a = a.or_else(|| take().map(|a| a()));
        (
            a.expect("the slot is taken once, by the side that runs it"),
            b,
        )
    })
}

/// [`both`] when `two_threads`, else `a()` then `b()` here.
pub fn both_if<A: Send, B>(
    two_threads: bool,
    a: impl FnOnce() -> A + Send,
    b: impl FnOnce() -> B,
) -> (A, B) {
    if two_threads {
        both(a, b)
    } else {
        (a(), b())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_runs_its_first_task_on_a_second_thread_and_passes_on_its_panic() {
        let here = std::thread::current().id();
        let (a, b) = both(
            || std::thread::current().id(),
            || std::thread::current().id(),
        );
        assert_ne!(a, here);
        assert_eq!(b, here);
        let payload = std::panic::catch_unwind(|| {
            both(
                || {
                    std::panic::panic_any(crate::alloc::OutOfMemory {
                        what: "a test",
                        bytes: 1,
                    })
                },
                || 1,
            )
        })
        .unwrap_err();
        let oom = payload.downcast_ref::<crate::alloc::OutOfMemory>().unwrap();
        assert_eq!(oom.what, "a test");
    }

    #[test]
    fn both_if_without_two_threads_runs_both_here_in_turn() {
        let here = std::thread::current().id();
        let order = std::sync::Mutex::new(Vec::new());
        let (a, b) = both_if(
            false,
            || {
                order.lock().unwrap().push('a');
                std::thread::current().id()
            },
            || {
                order.lock().unwrap().push('b');
                std::thread::current().id()
            },
        );
        assert_eq!((a, b), (here, here));
        assert_eq!(*order.lock().unwrap(), ['a', 'b']);
    }
}
