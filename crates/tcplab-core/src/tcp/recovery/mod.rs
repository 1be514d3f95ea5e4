// SPDX-License-Identifier: MIT OR Apache-2.0
//! Loss recovery: what the sender does between detecting a loss by
//! duplicate ACKs (or the SACK scoreboard) and the end of the recovery.
//!
//! Each strategy is one file behind [`RecoveryStrategy`]; the [`recoveries!`]
//! table below makes, from one row per strategy, both the name a scenario
//! gives ([`Recovery`]) and the enum a connection carries ([`Strategy`]),
//! dispatched by `match` (no allocation, no `dyn` call per event). A
//! strategy works on the connection ([`Conn`]) through its narrow
//! interface (`tcp/sender/view.rs` and the public actions of
//! `tcp/sender/conn.rs`; the fields are the sender's): it reads the
//! [`Tcb`](crate::cc::Tcb) with the windows and the recovery point, the
//! scoreboard, RACK's marks and what the ACK delivered, and it reduces,
//! sets cwnd, retransmits, sends, changes state and logs. What any
//! recovery combines with lives in the connection as components: the RTO
//! policy ([`super::rtt::RtoPolicy`]), Vegas's fine-grained retransmission
//! ([`super::fine_retx`]), the rate sampler ([`super::rate`]); on the
//! congestion-control side, the slow-start components
//! ([`crate::cc::slow_start`]). PRR ([`Prr`]) is a component too, which
//! the prr recovery lends the ECN response's CWR state through
//! [`RecoveryStrategy::prr`].
//!
//! Fast retransmit is entered only when the cumulative ACK is above the
//! previous recovery point (RFC 6582 3.2 step 1) for tahoe and newreno, at
//! or above it for sack (RFC 6675 5.1), so the duplicates that follow a
//! timeout do not trigger a second reduction; reno has no such guard, as in
//! RFC 5681; sack1 (ns-2's Sack1) guards only after a timeout.

mod newreno;
mod ns2_vegas;
mod prr;
mod rate_halving;
mod reno;
mod sack;
mod sack1;
mod tahoe;

use serde::{Serialize, Serializer};

use super::sender::Conn;
use super::{TcpConfig, TcpHeader};
use crate::time::SimTime;

pub use newreno::NewReno;
pub use ns2_vegas::Ns2Vegas;
pub use prr::{Prr, PrrRecovery};
pub use rate_halving::RateHalving;
pub use reno::Reno;
pub(crate) use sack::sack_loss_detected;
pub use sack::Sack;
pub use sack1::Sack1;
pub use tahoe::Tahoe;

/// One loss-recovery strategy. The sender calls it:
/// - on every ACK with SACK on: [`takes_sack`] (its blocks into the
///   scoreboard, or the scoreboard emptied);
/// - on a duplicate ACK outside recovery: [`counts_dupack`], then, when
///   [`loss_detected`] and [`may_start`], [`start`];
/// - on a duplicate ACK in recovery: [`counts_dupack`], then [`on_dupack`];
/// - on an ACK of new data in recovery: [`on_ack`];
/// - when it may send in recovery: [`send`] (or the ordinary window);
/// - when the retransmission timer fires: [`on_timeout`];
/// - for the ECN response's CWR state: [`prr`], the PRR component it
///   shares with the strategy;
/// - with Vegas's fine-grained retransmission: [`fine_overdue`] on a
///   duplicate ACK below DupThresh that finds the first segment overdue,
///   [`fine_resent`] when a new ACK does, and [`resends`] on a duplicate
///   ACK in the recovery.
///
/// [`takes_sack`]: RecoveryStrategy::takes_sack
/// [`counts_dupack`]: RecoveryStrategy::counts_dupack
/// [`loss_detected`]: RecoveryStrategy::loss_detected
/// [`may_start`]: RecoveryStrategy::may_start
/// [`start`]: RecoveryStrategy::start
/// [`on_dupack`]: RecoveryStrategy::on_dupack
/// [`on_ack`]: RecoveryStrategy::on_ack
/// [`send`]: RecoveryStrategy::send
/// [`on_timeout`]: RecoveryStrategy::on_timeout
/// [`prr`]: RecoveryStrategy::prr
/// [`fine_overdue`]: RecoveryStrategy::fine_overdue
/// [`fine_resent`]: RecoveryStrategy::fine_resent
/// [`resends`]: RecoveryStrategy::resends
pub trait RecoveryStrategy {
    fn new(cfg: &TcpConfig) -> Self
    where
        Self: Sized;
    /// Whether this duplicate ACK counts: towards DupThresh outside a
    /// recovery, as a call to [`on_dupack`](RecoveryStrategy::on_dupack) in
    /// it; `new_sack`: it SACKs data not SACKed before.
    fn counts_dupack(&self, _c: &Conn, _new_sack: bool) -> bool {
        true
    }
    /// Whether this ACK's SACK blocks go into the scoreboard (`new_ack`: it
    /// acknowledges new data); if not, the scoreboard is emptied instead.
    fn takes_sack(&self, _c: &Conn, _new_ack: bool) -> bool {
        true
    }
    /// Whether a loss is detected: DupThresh duplicate ACKs, by default.
    fn loss_detected(&self, c: &Conn) -> bool {
        c.dupacks() >= c.dupthresh()
    }
    /// Whether a recovery may start now (the guard on the cumulative ACK).
    fn may_start(&self, c: &Conn) -> bool;
    /// Starts the recovery: the window reduction ([`Conn::reduce`]), the
    /// window, the first retransmission.
    fn start(&mut self, c: &mut Conn, now: SimTime, out: &mut Vec<TcpHeader>);
    /// A duplicate ACK during the recovery.
    fn on_dupack(&mut self, _c: &mut Conn) {}
    /// An ACK of `acked` new bytes, up to `ack`, during the recovery: the
    /// window, a partial ACK's retransmission, the end of the recovery.
    fn on_ack(&mut self, c: &mut Conn, now: SimTime, ack: u64, acked: u64);
    /// During the recovery: sends what the strategy allows and returns true,
    /// or returns false to leave sending to the ordinary window.
    fn send(&mut self, _c: &mut Conn, _now: SimTime, _out: &mut Vec<TcpHeader>) -> bool {
        false
    }
    /// The retransmission timer fired (the sender has gone back to
    /// `snd_una`).
    fn on_timeout(&mut self, _c: &mut Conn) {}
    /// The [`Prr`] component this strategy paces its window with, which the
    /// ECN response's CWR state shares (a loss found in CWR continues the
    /// same reduction as a recovery); none by default.
    fn prr(&mut self) -> Option<&mut Prr> {
        None
    }
    /// In the recovery, whether this duplicate ACK retransmits again, by
    /// calling [`start`](RecoveryStrategy::start) anew; no, by default.
    fn resends(&self, _c: &Conn, _now: SimTime) -> bool {
        false
    }
    /// Vegas's fine-grained check found the first unacknowledged segment,
    /// last sent at `sent_at`, overdue on a duplicate ACK below DupThresh:
    /// whether the recovery starts ([`start`](RecoveryStrategy::start)).
    /// By default it does only for a loss of data sent after the last
    /// reduction and above the recovery point; otherwise the segment is
    /// resent here and the window kept.
    fn fine_overdue(
        &mut self,
        c: &mut Conn,
        now: SimTime,
        sent_at: SimTime,
        out: &mut Vec<TcpHeader>,
    ) -> bool {
        let fine = c.fine_mut().expect("fine_expired needs it");
        fine.retransmitted();
        let last_reduction = fine.last_reduction;
        if sent_at > last_reduction && c.tcb().snd_una > c.tcb().recover {
            return true;
        }
        let s = c.tcb().snd_una;
        c.retransmit(now, s, out);
        c.retransmit_backoff(now);
        false
    }
    /// In Open, one of the two new ACKs after a fine-grained retransmission
    /// found the next segment overdue too (it is resent at the next chance
    /// to send); nothing else, by default.
    fn fine_resent(&mut self, _c: &mut Conn) {}
}

/// A strategy whose state is large lives behind a box, so that every
/// connection's [`Strategy`] stays as small as the small ones'.
impl<T: RecoveryStrategy> RecoveryStrategy for Box<T> {
    fn new(cfg: &TcpConfig) -> Self {
        Box::new(T::new(cfg))
    }
    fn counts_dupack(&self, c: &Conn, new_sack: bool) -> bool {
        (**self).counts_dupack(c, new_sack)
    }
    fn takes_sack(&self, c: &Conn, new_ack: bool) -> bool {
        (**self).takes_sack(c, new_ack)
    }
    fn loss_detected(&self, c: &Conn) -> bool {
        (**self).loss_detected(c)
    }
    fn may_start(&self, c: &Conn) -> bool {
        (**self).may_start(c)
    }
    fn start(&mut self, c: &mut Conn, now: SimTime, out: &mut Vec<TcpHeader>) {
        (**self).start(c, now, out)
    }
    fn on_dupack(&mut self, c: &mut Conn) {
        (**self).on_dupack(c)
    }
    fn on_ack(&mut self, c: &mut Conn, now: SimTime, ack: u64, acked: u64) {
        (**self).on_ack(c, now, ack, acked)
    }
    fn send(&mut self, c: &mut Conn, now: SimTime, out: &mut Vec<TcpHeader>) -> bool {
        (**self).send(c, now, out)
    }
    fn on_timeout(&mut self, c: &mut Conn) {
        (**self).on_timeout(c)
    }
    fn prr(&mut self) -> Option<&mut Prr> {
        (**self).prr()
    }
    fn resends(&self, c: &Conn, now: SimTime) -> bool {
        (**self).resends(c, now)
    }
    fn fine_overdue(
        &mut self,
        c: &mut Conn,
        now: SimTime,
        sent_at: SimTime,
        out: &mut Vec<TcpHeader>,
    ) -> bool {
        (**self).fine_overdue(c, now, sent_at, out)
    }
    fn fine_resent(&mut self, c: &mut Conn) {
        (**self).fine_resent(c)
    }
}

/// Declares the strategies: each row gives the variant, its type (one file;
/// boxed if its state is large) and its name in scenarios. Adding a
/// strategy is one file and one row.
/// Names joined by ", " at compile time.
macro_rules! join_names {
    ($first:literal $(, $rest:literal)*) => {
        concat!($first $(, ", ", $rest)*)
    };
}

macro_rules! recoveries {
    ($($variant:ident => $ty:ty, $name:literal;)+) => {
        /// A loss-recovery strategy, as a scenario names it.
        #[derive(Clone, Copy, Debug, PartialEq, Eq)]
        pub enum Recovery {
            $($variant),+
        }

        impl Recovery {
            /// Every strategy, in the table's order.
            pub const ALL: &'static [Recovery] = &[$(Recovery::$variant),+];

            /// Their names, in the table's order, joined by ", " (the
            /// schema's kind of `flows[tcp].recovery`).
            pub const NAMES: &'static str = join_names!($($name),+);

            pub fn name(self) -> &'static str {
                match self {
                    $(Recovery::$variant => $name),+
                }
            }
        }

        crate::deserialize_names!(Recovery { $($name => Recovery::$variant),+ });

        /// A connection's recovery strategy and its state.
        #[derive(Clone, Debug)]
        pub enum Strategy {
            $($variant($ty)),+
        }

        impl Strategy {
            pub fn new(kind: Recovery, cfg: &TcpConfig) -> Self {
                match kind {
                    $(Recovery::$variant => {
                        Strategy::$variant(<$ty as RecoveryStrategy>::new(cfg))
                    }),+
                }
            }
        }

        impl RecoveryStrategy for Strategy {
            fn new(cfg: &TcpConfig) -> Self {
                Strategy::new(cfg.recovery, cfg)
            }
            #[inline]
            fn counts_dupack(&self, c: &Conn, new_sack: bool) -> bool {
                match self {
                    $(Strategy::$variant(s) => s.counts_dupack(c, new_sack)),+
                }
            }
            #[inline]
            fn takes_sack(&self, c: &Conn, new_ack: bool) -> bool {
                match self {
                    $(Strategy::$variant(s) => s.takes_sack(c, new_ack)),+
                }
            }
            #[inline]
            fn loss_detected(&self, c: &Conn) -> bool {
                match self {
                    $(Strategy::$variant(s) => s.loss_detected(c)),+
                }
            }
            #[inline]
            fn may_start(&self, c: &Conn) -> bool {
                match self {
                    $(Strategy::$variant(s) => s.may_start(c)),+
                }
            }
            fn start(&mut self, c: &mut Conn, now: SimTime, out: &mut Vec<TcpHeader>) {
                match self {
                    $(Strategy::$variant(s) => s.start(c, now, out)),+
                }
            }
            #[inline]
            fn on_dupack(&mut self, c: &mut Conn) {
                match self {
                    $(Strategy::$variant(s) => s.on_dupack(c)),+
                }
            }
            fn on_ack(&mut self, c: &mut Conn, now: SimTime, ack: u64, acked: u64) {
                match self {
                    $(Strategy::$variant(s) => s.on_ack(c, now, ack, acked)),+
                }
            }
            #[inline]
            fn send(&mut self, c: &mut Conn, now: SimTime, out: &mut Vec<TcpHeader>) -> bool {
                match self {
                    $(Strategy::$variant(s) => s.send(c, now, out)),+
                }
            }
            fn on_timeout(&mut self, c: &mut Conn) {
                match self {
                    $(Strategy::$variant(s) => s.on_timeout(c)),+
                }
            }
            #[inline]
            fn prr(&mut self) -> Option<&mut Prr> {
                match self {
                    $(Strategy::$variant(s) => s.prr()),+
                }
            }
            #[inline]
            fn resends(&self, c: &Conn, now: SimTime) -> bool {
                match self {
                    $(Strategy::$variant(s) => s.resends(c, now)),+
                }
            }
            fn fine_overdue(
                &mut self,
                c: &mut Conn,
                now: SimTime,
                sent_at: SimTime,
                out: &mut Vec<TcpHeader>,
            ) -> bool {
                match self {
                    $(Strategy::$variant(s) => s.fine_overdue(c, now, sent_at, out)),+
                }
            }
            fn fine_resent(&mut self, c: &mut Conn) {
                match self {
                    $(Strategy::$variant(s) => s.fine_resent(c)),+
                }
            }
        }
    };
}

recoveries! {
    Tahoe => Tahoe, "tahoe";
    Reno => Reno, "reno";
    Newreno => NewReno, "newreno";
    Sack => Sack, "sack";
    Prr => Box<PrrRecovery>, "prr";
    RateHalving => Box<RateHalving>, "rate_halving";
    Sack1 => Box<Sack1>, "sack1";
    Ns2Vegas => Box<Ns2Vegas>, "ns2_vegas";
}

impl Recovery {
    /// It cannot run without the SACK option (sack, rate_halving, sack1).
    pub fn needs_sack(self) -> bool {
        matches!(
            self,
            Recovery::Sack | Recovery::RateHalving | Recovery::Sack1
        )
    }
}

impl Serialize for Recovery {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.name())
    }
}
