// SPDX-License-Identifier: MIT OR Apache-2.0
//! The sender pinned state by state: fixtures put a connection in a known
//! state (established with a window in flight, in fast recovery, after a
//! timeout, idle) by feeding it the receiver's segments by hand, and each
//! test states one claim about what it does next, with numbers worked out
//! from the RFCs. Segment k (from 0) carries bytes [1 + k MSS, 1 + (k+1) MSS):
//! the SYN takes sequence number 0.

use super::sender::{Sender, TcpEventKind};
use super::*;
use crate::cc::registry::{self, CcSpec, Profile};
use crate::cc::CaState;
use crate::time::{SimDuration, SimTime};

const MSS: u64 = 1000;
const RTT: SimDuration = SimDuration::from_millis(100);

/// The first byte of segment `k`.
fn seg(k: u64) -> u64 {
    1 + k * MSS
}

fn config(initial_segments: u64) -> TcpConfig {
    TcpConfig::for_tests(MSS, initial_segments)
}

/// A sender and its clock; what it sends collects in `out`.
struct Fix {
    s: Sender,
    now: SimTime,
    out: Vec<TcpHeader>,
}

impl Fix {
    /// A sender of variant `cc` (its fine-grained retransmission as the
    /// registry says), connected after one RTT, with an endless
    /// application: it has sent its initial window.
    fn established(cc: &str, cfg: TcpConfig) -> Fix {
        Fix::established_with(cc, cfg, SYN | ACK)
    }

    /// As [`Fix::established`], the SYN-ACK carrying `flags` (ECE: an
    /// ECN-setup SYN-ACK).
    fn established_with(cc: &str, cfg: TcpConfig, flags: u8) -> Fix {
        let built = registry::build(&CcSpec::named(cc), "cc", Profile::Paper, false).unwrap();
        Fix::connected(Sender::new(cfg, built.cc, built.fine_retransmit), flags)
    }

    /// As [`Fix::established`], with the controller `cc`.
    fn established_cc(cc: Box<dyn crate::cc::CongestionControl>, cfg: TcpConfig) -> Fix {
        Fix::connected(Sender::new(cfg, cc, false), SYN | ACK)
    }

    /// Sender `s` connected after one RTT by a SYN-ACK carrying `flags`.
    fn connected(s: Sender, flags: u8) -> Fix {
        let mut f = Fix {
            s,
            now: SimTime::ZERO,
            out: Vec::new(),
        };
        f.s.record_events();
        f.s.open(f.now, &mut f.out);
        f.s.set_app_limit(f.now, u64::MAX, &mut f.out);
        f.advance(RTT);
        let syn_ack = TcpHeader {
            seq: 0,
            ack: 1,
            flags,
            wnd: 65_535,
            ..TcpHeader::default()
        };
        f.s.on_segment(f.now, &syn_ack, &mut f.out);
        f
    }

    /// NewReno, ten segments in flight.
    fn ten_in_flight() -> Fix {
        let mut f = Fix::established("newreno", config(10));
        f.take();
        f
    }

    /// NewReno with SACK and RACK-TLP, ten segments in flight, nothing
    /// more to send.
    fn rack_tlp_ten() -> Fix {
        let mut cfg = config(10);
        cfg.recovery = Recovery::Sack;
        cfg.sack = true;
        cfg.rack = crate::tcp::RackMode::WithTlp;
        let mut f = Fix::established("newreno", cfg);
        f.s.pause_app();
        f.take();
        f
    }

    /// Go-back-N after the timeout that has just fired: ACKs each
    /// retransmission one RTT later until `n` segments were resent.
    fn resend_after_timeout(&mut self, n: usize) -> Vec<(u64, u64)> {
        let mut sent = self.take();
        while sent.len() < n {
            self.advance(RTT);
            let &(s, l) = sent.last().expect("something was resent");
            self.ack(s + l);
            sent.extend(self.take());
        }
        sent
    }

    /// NewReno with limited transmit, ten segments in flight, one RTT on.
    fn ten_in_flight_limited_transmit() -> Fix {
        let mut cfg = config(10);
        cfg.limited_transmit = true;
        let mut f = Fix::established("newreno", cfg);
        f.take();
        f.advance(RTT);
        f
    }

    /// Ten segments in flight, the first lost: three duplicate ACKs have
    /// started fast recovery.
    fn in_recovery(cfg: TcpConfig) -> Fix {
        let mut f = Fix::established("newreno", cfg);
        f.take();
        f.advance(RTT);
        for _ in 0..3 {
            f.dupack();
        }
        f.take();
        f
    }

    /// Ten segments in flight and no ACK for an RTO: the timer fired once.
    fn after_timeout() -> Fix {
        let mut f = Fix::ten_in_flight();
        f.timeout();
        f.take();
        f
    }

    fn advance(&mut self, d: SimDuration) {
        self.now += d;
    }

    /// A cumulative ACK of everything below `ack`.
    fn ack(&mut self, ack: u64) {
        let h = TcpHeader {
            ack,
            flags: ACK,
            wnd: 65_535,
            ..TcpHeader::default()
        };
        self.s.on_segment(self.now, &h, &mut self.out);
    }

    fn dupack(&mut self) {
        self.ack(self.s.tcb().snd_una);
    }

    /// Jumps to the retransmission timer's deadline and fires it.
    fn timeout(&mut self) {
        self.now = self.s.rto_deadline().expect("the timer runs");
        self.s.on_rto(self.now, &mut self.out);
    }

    /// The data segments sent since the last call, as (seq, len).
    fn take(&mut self) -> Vec<(u64, u64)> {
        self.out
            .drain(..)
            .filter(|h| h.len > 0)
            .map(|h| (h.seq, h.len as u64))
            .collect()
    }

    fn events(&mut self) -> Vec<TcpEventKind> {
        self.s
            .events_mut()
            .map(|e| e.drain(..).map(|e| e.kind).collect())
            .unwrap_or_default()
    }

    fn cwnd_segments(&self) -> f64 {
        self.s.tcb().cwnd as f64 / MSS as f64
    }

    fn ssthresh_segments(&self) -> f64 {
        self.s.tcb().ssthresh as f64 / MSS as f64
    }

    fn state(&self) -> CaState {
        self.s.tcb().ca_state
    }
}

fn segments(first: u64, n: u64) -> Vec<(u64, u64)> {
    (first..first + n).map(|k| (seg(k), MSS)).collect()
}

// ---- established ----------------------------------------------------------

#[test]
fn the_handshake_sends_the_initial_window_at_once_and_arms_the_timer() {
    let mut f = Fix::established("newreno", config(10));
    assert_eq!(f.take(), segments(0, 10));
    assert_eq!(f.s.tcb().snd_max, seg(10));
    // The SYN's RTT is the first sample: RTO = max(1 s, SRTT + 4 RTTVAR).
    assert_eq!(f.s.rto_deadline(), Some(f.now + SimDuration::from_secs(1)));
    assert_eq!(f.state(), CaState::Open);
}

#[test]
fn each_new_ack_in_slow_start_grows_the_window_by_one_segment_and_sends_two() {
    let mut f = Fix::ten_in_flight();
    f.advance(RTT);
    f.ack(seg(1));
    assert_eq!(f.cwnd_segments(), 11.0);
    assert_eq!(f.take(), segments(10, 2));
    f.ack(seg(3)); // a stretch ACK of two segments still adds one (no ABC)
    assert_eq!(f.cwnd_segments(), 12.0);
    assert_eq!(f.take(), segments(12, 3));
}

#[test]
fn a_new_ack_restarts_the_timer_and_the_last_one_stops_it() {
    let mut f = Fix::ten_in_flight();
    f.advance(RTT);
    f.ack(seg(1));
    let rto = f.s.rtt().rto();
    assert_eq!(f.s.rto_deadline(), Some(f.now + rto));
    f.s.pause_app(); // nothing more to send
    f.take();
    f.advance(RTT);
    let end = f.s.tcb().snd_max;
    f.ack(end);
    assert_eq!(f.s.rto_deadline(), None);
}

#[test]
fn with_limited_transmit_each_of_the_first_two_duplicate_acks_sends_one_new_segment() {
    // RFC 3042 / RFC 5681 3.2 step 1: previously unsent data, cwnd unchanged.
    let mut f = Fix::ten_in_flight_limited_transmit();
    f.dupack();
    assert_eq!(f.take(), segments(10, 1));
    f.dupack();
    assert_eq!(f.take(), segments(11, 1));
    assert_eq!(f.cwnd_segments(), 10.0);
    assert_eq!(f.state(), CaState::Disorder);
    // Step 2: ssthresh leaves the two out of FlightSize (12 segments sent,
    // 10 counted), but the recovery point covers them.
    f.dupack();
    assert_eq!(f.take(), vec![(seg(0), MSS)]);
    assert_eq!(f.ssthresh_segments(), 5.0);
    assert_eq!(f.cwnd_segments(), 8.0);
    assert_eq!(f.s.tcb().recover, seg(12));
}

#[test]
fn limited_transmit_sends_nothing_more_once_a_new_ack_arrives() {
    let mut f = Fix::ten_in_flight_limited_transmit();
    f.dupack();
    assert_eq!(f.take(), segments(10, 1));
    // The ACK of segment 0: slow start grows cwnd to 11 and the window
    // (snd_una + 11 segments = segment 12) lets out segment 11 only.
    f.ack(seg(1));
    assert_eq!(f.take(), segments(11, 1));
    assert_eq!(f.s.tcb().limited_sent, 0);
    assert_eq!(f.state(), CaState::Open);
}

#[test]
fn two_duplicate_acks_send_nothing_and_change_no_window() {
    // Without limited transmit (RFC 3042).
    let mut f = Fix::ten_in_flight();
    f.advance(RTT);
    f.dupack();
    f.dupack();
    assert!(f.take().is_empty());
    assert_eq!(f.cwnd_segments(), 10.0);
    assert_eq!(f.state(), CaState::Disorder);
    assert_eq!(f.s.stats().dupacks, 2);
}

#[test]
fn the_third_duplicate_ack_retransmits_snd_una_and_halves_the_flight() {
    let mut f = Fix::ten_in_flight();
    f.advance(RTT);
    f.dupack();
    f.dupack();
    f.events();
    f.dupack();
    assert_eq!(f.take(), vec![(seg(0), MSS)]);
    // RFC 5681 (4)-(5): ssthresh = FlightSize / 2, cwnd = ssthresh + 3 MSS.
    assert_eq!(f.ssthresh_segments(), 5.0);
    assert_eq!(f.cwnd_segments(), 8.0);
    assert_eq!(f.state(), CaState::Recovery);
    assert_eq!(f.s.tcb().recover, seg(10));
    assert_eq!(f.s.stats().fast_retransmits, 1);
    assert_eq!(f.s.stats().retransmitted_segments, 1);
    assert_eq!(
        f.events(),
        vec![TcpEventKind::FastRetransmit, TcpEventKind::Retransmit]
    );
}

#[test]
fn pacing_spaces_segments_by_their_payload_at_the_pacing_rate() {
    // The paper profile's pacing of bbr: one segment at a time, from the
    // first.
    let built = registry::build(&CcSpec::named("bbr"), "cc", Profile::Paper, false).unwrap();
    let mut s = Sender::new(config(10), built.cc, false);
    s.set_pacing(&crate::tcp::PacingConfig {
        form: crate::tcp::Pacing::Segment,
        ss_ratio: 200,
        ca_ratio: 120,
        max_rate: f64::INFINITY,
        pace_initial_window: true,
    });
    let mut f = Fix::connected(s, SYN | ACK);
    // BBR's first rate: 2/ln 2 times the initial window over the
    // handshake's RTT, 2.885 x 10,000 B / 0.1 s.
    let rate = f.s.tcb().pacing_rate;
    assert!((rate - 288_539.008_177_792_7).abs() < 1e-6, "{rate}");
    assert_eq!(f.take(), segments(0, 1));
    // The next segment waits for its predecessor's 1,000 B of payload at
    // that rate, ln 2 / 200 s; its 40 B of headers are not paced (Linux
    // paces skb->len, ns-3 the segment's size).
    let gap = SimDuration::from_nanos(3_465_736);
    assert_eq!(f.s.pace_deadline(), Some(f.now + gap));
    for k in 1..3 {
        f.advance(gap);
        f.s.on_pace(f.now, &mut f.out);
        assert_eq!(f.take(), segments(k, 1));
        assert_eq!(f.s.pace_deadline(), Some(f.now + gap));
    }
}

// ---- in fast recovery -----------------------------------------------------

#[test]
fn in_recovery_each_further_duplicate_ack_inflates_the_window_by_one_segment() {
    let mut f = Fix::in_recovery(config(10));
    f.dupack();
    f.dupack();
    assert_eq!(f.cwnd_segments(), 10.0);
    assert!(f.take().is_empty(), "cwnd 10 MSS = the flight: no room yet");
    f.dupack();
    assert_eq!(f.cwnd_segments(), 11.0);
    assert_eq!(f.take(), segments(10, 1), "one segment left the network");
}

#[test]
fn in_recovery_a_partial_ack_retransmits_the_next_hole_and_deflates_the_window() {
    let mut f = Fix::in_recovery(config(10));
    f.events();
    f.advance(RTT);
    // The retransmission arrived, filling up to segment 2; segment 2 was lost too.
    f.ack(seg(2));
    assert_eq!(f.take(), vec![(seg(2), MSS)]);
    // RFC 6582 3.2 step 5: deflate by the 2 MSS acknowledged, add back one.
    assert_eq!(f.cwnd_segments(), 8.0 - 2.0 + 1.0);
    assert_eq!(f.state(), CaState::Recovery);
    assert_eq!(
        f.events(),
        vec![TcpEventKind::PartialAck, TcpEventKind::Retransmit]
    );
}

#[test]
fn in_recovery_the_ack_of_the_recovery_point_ends_it_with_the_flight_plus_one_segment() {
    let mut f = Fix::in_recovery(config(10));
    f.advance(RTT);
    f.ack(seg(10));
    // RFC 6582 option 1: min(ssthresh, max(FlightSize, MSS) + MSS) with
    // nothing in flight: 2 MSS, then one more for this ACK in slow start.
    assert_eq!(f.state(), CaState::Open);
    assert_eq!(f.ssthresh_segments(), 5.0);
    assert_eq!(f.cwnd_segments(), 2.0);
    assert_eq!(f.take(), segments(10, 2));
}

#[test]
fn in_recovery_with_recovery_exit_ssthresh_the_window_returns_to_ssthresh() {
    let mut cfg = config(10);
    cfg.recovery_exit = RecoveryExit::Ssthresh;
    let mut f = Fix::in_recovery(cfg);
    f.advance(RTT);
    f.ack(seg(10));
    assert_eq!(f.state(), CaState::Open);
    assert_eq!(f.cwnd_segments(), 5.0);
    assert_eq!(f.take(), segments(10, 5));
}

#[test]
fn reno_leaves_recovery_on_its_first_new_ack_even_a_partial_one() {
    let mut cfg = config(10);
    cfg.recovery = Recovery::Reno;
    let mut f = Fix::in_recovery(cfg);
    f.advance(RTT);
    f.ack(seg(2));
    assert_eq!(f.state(), CaState::Open);
    assert_eq!(f.cwnd_segments(), 5.0);
    assert!(f.take().is_empty(), "8 MSS in flight, window 5: nothing");
}

/// Fast recovery of segment 0 ended by the ACK of its recovery point
/// (segment 10); new segments went out from segment 10 on and segment 10
/// is lost: three duplicate ACKs of the recovery point follow.
fn dupacks_at_the_recovery_point(recovery: Recovery) -> Fix {
    let mut cfg = config(10);
    cfg.recovery = recovery;
    let mut f = Fix::in_recovery(cfg);
    f.advance(RTT);
    f.ack(seg(10));
    assert_eq!(f.take()[0], (seg(10), MSS));
    f.advance(RTT);
    for _ in 0..3 {
        f.dupack();
    }
    f
}

#[test]
fn newreno_needs_an_ack_above_the_recovery_point_to_start_another_recovery() {
    // RFC 6582 3.2 step 1: the duplicate ACKs must cover more than recover.
    let mut f = dupacks_at_the_recovery_point(Recovery::Newreno);
    assert_eq!(f.s.stats().fast_retransmits, 1);
    assert!(f.take().is_empty());
}

#[test]
fn reno_starts_another_recovery_at_the_recovery_point() {
    let mut f = dupacks_at_the_recovery_point(Recovery::Reno);
    assert_eq!(f.s.stats().fast_retransmits, 2);
    assert_eq!(f.take(), vec![(seg(10), MSS)]);
}

// ---- after a timeout ------------------------------------------------------

#[test]
fn a_timeout_retransmits_snd_una_from_a_window_of_one_segment() {
    let mut f = Fix::ten_in_flight();
    let rto = f.s.rtt().rto();
    f.timeout();
    assert_eq!(f.take(), vec![(seg(0), MSS)]);
    assert_eq!(f.cwnd_segments(), 1.0);
    assert_eq!(f.ssthresh_segments(), 5.0, "half the 10 MSS in flight");
    assert_eq!(f.state(), CaState::Loss);
    assert_eq!(f.s.stats().timeouts, 1);
    // RFC 6298 5.5: the RTO doubles.
    assert_eq!(f.s.rto_deadline(), Some(f.now + rto * 2));
}

#[test]
fn a_second_timeout_in_a_row_backs_off_again_and_keeps_ssthresh() {
    // RFC 5681 (5): ssthresh is set only on the first timeout of a series;
    // recomputing it from the 1 MSS now in flight would give 2 MSS.
    let mut f = Fix::after_timeout();
    let rto = f.s.rtt().rto();
    f.timeout();
    assert_eq!(f.take(), vec![(seg(0), MSS)]);
    assert_eq!(f.ssthresh_segments(), 5.0);
    assert_eq!(f.s.stats().timeouts, 2);
    assert_eq!(f.s.rto_deadline(), Some(f.now + rto * 2));
}

#[test]
fn after_a_timeout_duplicate_acks_start_no_fast_retransmit() {
    let mut f = Fix::after_timeout();
    for _ in 0..5 {
        f.dupack();
    }
    assert!(f.take().is_empty());
    assert_eq!(f.s.stats().fast_retransmits, 0);
    assert_eq!(f.state(), CaState::Loss);
}

#[test]
fn after_a_timeout_new_acks_slow_start_and_go_back_n() {
    let mut f = Fix::after_timeout();
    f.advance(RTT);
    f.ack(seg(1));
    assert_eq!(f.cwnd_segments(), 2.0);
    // Go-back-N: segments 1 and 2 again, counted as retransmissions.
    assert_eq!(f.take(), segments(1, 2));
    assert_eq!(f.s.stats().retransmitted_segments, 3);
    assert_eq!(f.state(), CaState::Loss);
}

#[test]
fn after_a_timeout_the_ack_of_everything_sent_before_it_returns_to_open() {
    let mut f = Fix::after_timeout();
    f.events();
    f.advance(RTT);
    f.ack(seg(10));
    assert_eq!(f.state(), CaState::Open);
    assert_eq!(f.events()[0], TcpEventKind::RecoveryExit);
}

// ---- after idle -------------------------------------------------------------

/// Two segments of initial window, grown to 4 by two ACKs, then all data
/// acknowledged and the sender idle for `idle`, then given more to send.
fn idle_then_send(restart: bool, idle: SimDuration) -> Fix {
    let mut cfg = config(2);
    cfg.restart_after_idle = restart;
    let mut f = Fix::established("newreno", cfg);
    f.s.pause_app();
    assert_eq!(f.take(), segments(0, 2));
    f.advance(RTT);
    f.ack(seg(2));
    assert_eq!(f.cwnd_segments(), 3.0);
    f.advance(idle);
    f.s.set_app_limit(f.now, 100 * MSS, &mut f.out);
    f
}

#[test]
fn after_idle_longer_than_the_rto_the_window_restarts_from_the_initial_window() {
    // RFC 5681 4.1.
    let mut f = idle_then_send(true, SimDuration::from_secs(2));
    assert_eq!(f.cwnd_segments(), 2.0);
    assert_eq!(f.take(), segments(2, 2));
}

#[test]
fn after_idle_shorter_than_the_rto_the_window_is_kept() {
    let mut f = idle_then_send(true, SimDuration::from_millis(500));
    assert_eq!(f.cwnd_segments(), 3.0);
    assert_eq!(f.take(), segments(2, 3));
}

#[test]
fn without_restart_after_idle_the_window_survives_any_idle_period() {
    let mut f = idle_then_send(false, SimDuration::from_secs(100));
    assert_eq!(f.cwnd_segments(), 3.0);
    assert_eq!(f.take(), segments(2, 3));
}

// ---- without a handshake --------------------------------------------------

/// A controller that sets cwnd to four segments at `init` and records the
/// SRTT it was initialised with; it never grows the window.
#[derive(Debug)]
struct InitProbe(std::sync::Arc<std::sync::Mutex<Vec<Option<SimDuration>>>>);

impl crate::cc::CongestionControl for InitProbe {
    fn name(&self) -> &'static str {
        "init_probe"
    }
    fn init(&mut self, tcb: &mut crate::cc::Tcb) {
        self.0.lock().unwrap().push(tcb.srtt);
        tcb.cwnd = 4 * tcb.mss;
    }
    fn increase_window(&mut self, _: &mut crate::cc::Tcb, _: &crate::cc::Ack) {}
    fn ssthresh(&mut self, tcb: &crate::cc::Tcb, _: crate::cc::LossCause) -> u64 {
        2 * tcb.mss
    }
}

/// A sender opened without a handshake at time 0, ten segments of
/// initial window, an endless application; the srtt values its controller
/// was initialised with collect in the second field.
fn one_way() -> (
    Fix,
    std::sync::Arc<std::sync::Mutex<Vec<Option<SimDuration>>>>,
) {
    let inits = std::sync::Arc::default();
    let cc = Box::new(InitProbe(std::sync::Arc::clone(&inits)));
    let mut f = Fix {
        s: Sender::new(config(10), cc, false),
        now: SimTime::ZERO,
        out: Vec::new(),
    };
    f.s.set_app_limit(f.now, u64::MAX, &mut f.out);
    f.s.open_established(f.now, &mut f.out);
    (f, inits)
}

#[test]
fn without_a_handshake_the_initial_window_leaves_at_the_start_with_the_initial_rto() {
    let (mut f, inits) = one_way();
    assert!(f.out.iter().all(|h| !h.has(SYN)));
    assert_eq!(f.take(), segments(0, 10));
    // No sample yet: the timer runs the initial RTO (1 s) from the start.
    assert_eq!(
        f.s.rto_deadline(),
        Some(SimTime::ZERO + SimDuration::from_secs(1))
    );
    assert!(inits.lock().unwrap().is_empty());
}

#[test]
fn without_a_handshake_the_variant_is_initialised_at_the_first_new_ack_with_its_rtt() {
    let (mut f, inits) = one_way();
    f.take();
    f.advance(RTT);
    f.dupack(); // a duplicate carries no sample: not yet
    assert!(inits.lock().unwrap().is_empty());
    f.ack(seg(1));
    assert_eq!(*inits.lock().unwrap(), vec![Some(RTT)]);
    // init's window (4) holds: 9 in flight, nothing more goes out.
    assert_eq!(f.cwnd_segments(), 4.0);
    assert_eq!(f.take(), vec![]);
    f.ack(seg(2));
    assert_eq!(inits.lock().unwrap().len(), 1, "once");
}

#[test]
fn without_a_handshake_a_timeout_before_any_ack_initialises_the_variant_first() {
    let (mut f, inits) = one_way();
    f.take();
    f.timeout();
    assert_eq!(*inits.lock().unwrap(), vec![None]);
    // Then the timeout's own rules: the controller's ssthresh, one segment.
    assert_eq!((f.ssthresh_segments(), f.cwnd_segments()), (2.0, 1.0));
    assert_eq!(f.take(), segments(0, 1));
}

// ---- Vegas's fine-grained retransmission ----------------------------------

/// Ten segments in flight under `cc`; `wait` later, one duplicate ACK.
fn one_dupack_after(cc: &str, wait: SimDuration) -> Fix {
    let mut f = Fix::established(cc, config(10));
    f.take();
    f.advance(wait);
    f.dupack();
    f
}

#[test]
fn vegas_retransmits_an_overdue_segment_on_the_first_duplicate_ack() {
    // After the SYN's sample SRTT = 100 ms and RTTVAR = 50 ms: the
    // fine-grained timeout is 300 ms (no 1 s floor).
    let mut f = one_dupack_after("vegas", SimDuration::from_millis(350));
    assert_eq!(f.take(), vec![(seg(0), MSS)]);
    assert_eq!(
        f.state(),
        CaState::Recovery,
        "data sent after the last reduction"
    );
    assert_eq!(f.s.stats().fast_retransmits, 1);
}

#[test]
fn vegas_waits_for_the_third_duplicate_ack_when_nothing_is_overdue() {
    let mut f = one_dupack_after("vegas", SimDuration::from_millis(250));
    assert!(f.take().is_empty());
    assert_eq!(f.state(), CaState::Disorder);
}

#[test]
fn other_variants_never_retransmit_on_one_duplicate_ack() {
    let mut f = one_dupack_after("newreno", SimDuration::from_millis(350));
    assert!(f.take().is_empty());
}

#[test]
fn vegas_checks_the_next_segment_on_the_new_ack_after_a_fine_retransmission() {
    let mut f = one_dupack_after("vegas", SimDuration::from_millis(350));
    f.take();
    f.advance(RTT);
    // The retransmission arrives; segment 1 (sent 450 ms ago) is overdue too.
    f.ack(seg(1));
    assert_eq!(f.take()[0], (seg(1), MSS));
}

#[test]
fn vegas_does_not_reduce_the_window_twice_for_one_window_of_losses() {
    // A fine retransmission of data sent before the last reduction only
    // retransmits.
    let mut f = one_dupack_after("vegas", SimDuration::from_millis(350));
    let ssthresh = f.s.tcb().ssthresh;
    f.take();
    f.advance(RTT);
    f.ack(seg(1));
    assert_eq!(f.s.tcb().ssthresh, ssthresh);
    assert_eq!(f.s.stats().fast_retransmits, 1);
}

#[test]
fn vegas_bsd_timeout_retransmits_exactly_when_algorithm_1_says() {
    let mut cfg = config(10);
    cfg.fine_timeout = super::fine_retx::FineTimeout::Bsd;
    let mut f = Fix::established("vegas", cfg);
    assert_eq!(f.take().len(), 10, "ten segments at 100 ms");
    f.advance(RTT);
    // The first ACK of data, 100 ms after its segment: sa = 8 x 100 ms,
    // sd = 100 ms, then 75 ms; timeout (200 + 75) / 2 = 137.5 ms plus a
    // sixteenth: 146.09375 ms.
    f.ack(seg(1));
    f.take();
    // Segment 1, first sent at 100 ms, is overdue from 246.09375 ms on: a
    // duplicate ACK a nanosecond before does nothing, one at it
    // retransmits (the RFC form's timeout here is 300 ms).
    f.now = SimTime::ZERO + SimDuration::from_nanos(246_093_749);
    f.dupack();
    assert!(f.take().is_empty());
    assert_eq!(f.state(), CaState::Disorder);
    f.now = SimTime::ZERO + SimDuration::from_nanos(246_093_750);
    f.dupack();
    assert_eq!(f.take(), vec![(seg(1), MSS)]);
    assert_eq!(f.state(), CaState::Recovery);
    assert_eq!(f.s.stats().fast_retransmits, 1);
}

mod recovery_tests;

mod prr_ns3_tests;

mod cc_rtt_tests;
mod cwr_tests;
mod frto_tests;
mod growth_tests;
mod loss_signal_tests;
mod pacing_tests;
mod persist_tests;
mod tail_tests;
mod timeout_ssthresh_tests;
mod undo_tests;
