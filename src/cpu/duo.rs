//! Two threads for the NLGS sweeps: a partner that waits for work spinning.
//!
//! A two-thread sweep hands the upper half of the pile to the other thread
//! several times per iteration (a full sweep and each round of hot sweeps,
//! `cpu::nlgs`): about 110 hand-offs a step, 140,000 a simulated second on
//! the 10,000-grain hourglass, each carrying 15-60 us of work. Through
//! `rayon::join` the other worker goes looking for work, then to sleep,
//! between hand-offs, and waking it costs as much as a hot round: the run
//! used 1.64 of its 2 cores, with 8 % of its samples in the kernel's
//! scheduler. Rayon has no way to keep a worker waiting on one caller, and
//! no crate we know offers a persistent spinning partner over borrowed
//! data, so this is written here: [`Duo::with`] holds one pool worker
//! spinning for the length of a solve, and [`Duo::both`] hands it one job.
//!
//! Nothing waits on a partner that never came: the caller takes back a job
//! the partner has not claimed and runs it itself, so a pool of one thread
//! (or a busy one) runs everything on the caller, in the same order, and the
//! results never depend on which thread ran a job.

use std::cell::UnsafeCell;
use std::sync::atomic::{AtomicU8, Ordering};

use crossbeam_utils::Backoff;

/// No job posted.
const EMPTY: u8 = 0;
/// A job waits in the slot.
const POSTED: u8 = 1;
/// The partner runs the job.
const TAKEN: u8 = 2;
/// The partner finished the job.
const DONE: u8 = 3;
/// The caller is done: the partner returns.
const STOP: u8 = 4;

/// A job as the partner sees it: its lifetime is erased, and [`Duo::both`]
/// does not return before the job ran (the caller runs it, or waits for it).
type Job = *mut (dyn FnMut() + Send);

/// One caller, one partner and a slot for one job ([`Duo::with`]).
pub struct Duo {
    state: AtomicU8,
    job: UnsafeCell<Option<Job>>,
}

// The slot is written by the caller before it publishes POSTED (Release) and
// read by the partner after it claims the job (Acquire); the job itself is
// Send, and `both` keeps it alive until it ran.
unsafe impl Sync for Duo {}

/// Marks the job done even if it panics, so that the caller never waits on
/// a job that will not finish (the panic then reaches it through rayon).
struct Finish<'a>(&'a AtomicU8);

impl Drop for Finish<'_> {
    fn drop(&mut self) {
        self.0.store(DONE, Ordering::Release);
    }
}

impl Duo {
    /// Run `body` with a partner waiting on another rayon worker when the
    /// pool has two threads or more (`None`: one thread, `body` should use
    /// `rayon::join` or nothing). The partner spins for as long as `body`
    /// runs; rayon work that `body` starts meanwhile runs on the caller.
    pub fn with<R: Send>(body: impl FnOnce(Option<&Duo>) -> R + Send) -> R {
        if rayon::current_num_threads() < 2 {
            return body(None);
        }
        let duo = Duo {
            state: AtomicU8::new(EMPTY),
            job: UnsafeCell::new(None),
        };
        let (r, ()) = rayon::join(
            || {
                let r = body(Some(&duo));
                duo.state.store(STOP, Ordering::Release);
                r
            },
            || duo.serve(),
        );
        r
    }

    /// The partner's loop: claim and run posted jobs until STOP.
    fn serve(&self) {
        let backoff = Backoff::new();
        loop {
            match self.state.load(Ordering::Acquire) {
                STOP => return,
                POSTED => {
                    if self
                        .state
                        .compare_exchange(POSTED, TAKEN, Ordering::Acquire, Ordering::Relaxed)
                        .is_ok()
                    {
                        let _done = Finish(&self.state);
                        // SAFETY: the caller wrote the slot before POSTED and
                        // waits for DONE before the job's borrows end.
                        let job = unsafe { (*self.job.get()).expect("a posted job") };
                        unsafe { (*job)() };
                        backoff.reset();
                    }
                }
                _ => backoff.snooze(),
            }
        }
    }

    /// Run `a` here and `b` on the partner (or here, after `a`, when the
    /// partner has not claimed it by then); returns both results.
    pub fn both<A, B>(&self, a: impl FnOnce() -> A, b: impl FnOnce() -> B + Send) -> (A, B)
    where
        B: Send,
    {
        let mut b = Some(b);
        let mut out = None;
        let mut run = || out = b.take().map(|b| b());
        let job: *mut (dyn FnMut() + Send + '_) = &mut run;
        // SAFETY: the job is run (here or by the partner) and finished before
        // this function returns, while `run` and its borrows are alive.
        let job: Job = unsafe { std::mem::transmute(job) };
        unsafe { *self.job.get() = Some(job) };
        self.state.store(POSTED, Ordering::Release);
        let ra = a();
        let took_back = self
            .state
            .compare_exchange(POSTED, EMPTY, Ordering::Acquire, Ordering::Acquire)
            .is_ok();
        if took_back {
            run();
        } else {
            let backoff = Backoff::new();
            while self.state.load(Ordering::Acquire) != DONE {
                backoff.snooze();
            }
            self.state.store(EMPTY, Ordering::Relaxed);
        }
        (ra, out.expect("the partner's job ran"))
    }
}

/// `a` and `b` on two threads: through the partner when there is one, else
/// through `rayon::join`.
pub fn join<A, B>(duo: Option<&Duo>, a: impl FnOnce() -> A + Send, b: impl FnOnce() -> B + Send) -> (A, B)
where
    A: Send,
    B: Send,
{
    match duo {
        Some(d) => d.both(a, b),
        None => rayon::join(a, b),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_runs_each_job_once_with_the_right_halves() {
        let mut v: Vec<u64> = (0..1000).collect();
        let sums = Duo::with(|duo| {
            let mut sums = Vec::new();
            for round in 0..200u64 {
                let (lo, hi) = v.split_at_mut(500);
                let (a, b) = join(
                    duo,
                    || lo.iter_mut().map(|x| std::mem::replace(x, *x + round)).sum::<u64>(),
                    || hi.iter_mut().map(|x| std::mem::replace(x, *x + 2 * round)).sum::<u64>(),
                );
                sums.push((a, b));
            }
            sums
        });
        // Each element grew by the sum of its rounds exactly once per round.
        let total: u64 = (0..200).sum();
        assert_eq!(v[0], total);
        assert_eq!(v[999], 999 + 2 * total);
        let last = sums.last().copied().expect("200 rounds");
        assert_eq!(last.0, (0..500u64).sum::<u64>() + 500 * (total - 199));
        assert_eq!(last.1, (500..1000u64).sum::<u64>() + 500 * 2 * (total - 199));
    }

    #[test]
    fn one_thread_pool_runs_everything_on_the_caller() {
        let pool = rayon::ThreadPoolBuilder::new().num_threads(1).build().expect("a pool");
        let n = pool.install(|| {
            Duo::with(|duo| {
                assert!(duo.is_none());
                let (a, b) = join(duo, || 1, || 2);
                a + b
            })
        });
        assert_eq!(n, 3);
    }

    #[test]
    fn a_job_the_partner_never_claims_runs_on_the_caller() {
        // A partner that is not serving: the caller takes the job back.
        let duo = Duo {
            state: AtomicU8::new(EMPTY),
            job: UnsafeCell::new(None),
        };
        let here = std::thread::current().id();
        let (a, b) = duo.both(|| 5, || std::thread::current().id());
        assert_eq!(a, 5);
        assert_eq!(b, here);
        assert_eq!(duo.state.load(Ordering::Relaxed), EMPTY);
    }
}
