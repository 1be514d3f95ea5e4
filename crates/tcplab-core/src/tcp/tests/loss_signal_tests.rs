// SPDX-License-Identifier: MIT OR Apache-2.0
//! What a controller that runs after loss detection (BBRv2/v3) hears of
//! losses, traced by hand: ten 1000-B segments in flight, SACK recovery,
//! the first segment lost.

use super::*;
use crate::cc::{CongestionControl, LostSegment, RateSample, Tcb};
use std::sync::{Arc, Mutex};

/// What the recorder saw: per control, (state, newly lost, lost since the
/// sample's segment left, its tx_in_flight); per marked segment, itself.
#[derive(Debug, Default)]
struct Seen {
    controls: Vec<(CaState, u64, u64, u64)>,
    priors: Vec<u64>,
    marked: Vec<LostSegment>,
}

/// Owns cwnd (keeps the initial 10 segments); records.
#[derive(Debug)]
struct Recorder(Arc<Mutex<Seen>>, bool);

impl CongestionControl for Recorder {
    fn name(&self) -> &'static str {
        "recorder"
    }
    fn increase_window(&mut self, _: &mut Tcb, _: &crate::cc::Ack) {}
    fn ssthresh(&mut self, tcb: &Tcb, _: crate::cc::LossCause) -> u64 {
        tcb.ssthresh
    }
    fn controls_fully(&self) -> bool {
        true
    }
    fn runs_after_loss_detection(&self) -> bool {
        self.1
    }
    fn control(&mut self, tcb: &mut Tcb, rs: &RateSample) {
        let seen = (tcb.ca_state, rs.newly_lost, rs.lost, rs.tx_in_flight);
        let mut s = self.0.lock().unwrap();
        s.controls.push(seen);
        s.priors.push(rs.prior_in_flight);
    }
    fn on_marked_lost(&mut self, _: &mut Tcb, seg: &LostSegment) {
        self.0.lock().unwrap().marked.push(*seg);
    }
}

fn recorded(late: bool) -> (Fix, Arc<Mutex<Seen>>) {
    let seen = Arc::new(Mutex::new(Seen::default()));
    let mut cfg = config(10);
    cfg.recovery = Recovery::Sack;
    cfg.sack = true;
    let mut f = Fix::established_cc(Box::new(Recorder(seen.clone(), late)), cfg);
    f.s.pause_app();
    assert_eq!(f.take().len(), 10);
    f.advance(RTT);
    (f, seen)
}

#[test]
fn the_ack_that_starts_a_recovery_tells_the_controller_of_its_loss_after_detection() {
    let (mut f, seen) = recorded(true);
    // Segments 1, 2, 3 SACKed: the third duplicate ACK starts the
    // recovery and retransmits segment 0, which nothing had marked lost:
    // the retransmission marks it (the hook hears: sent with 1 segment
    // out, 1000 B lost since, itself).
    f.sack(&[(1, 2)]);
    f.sack(&[(1, 3)]);
    f.sack(&[(1, 4)]);
    assert_eq!(f.take(), vec![(seg(0), MSS)]);
    let s = seen.lock().unwrap();
    assert_eq!(s.marked.len(), 1);
    assert_eq!(
        (s.marked[0].len, s.marked[0].lost, s.marked[0].tx_in_flight),
        (MSS, MSS, MSS)
    );
    // The controller ran after it: in Recovery, 1000 B newly lost, and the
    // sample's segment (3, sent with 4 out) left before the loss was marked.
    assert_eq!(s.controls.len(), 3);
    assert_eq!(s.controls[0], (CaState::Disorder, 0, 0, 2 * MSS));
    assert_eq!(s.controls[2], (CaState::Recovery, MSS, MSS, 4 * MSS));
}

#[test]
fn a_controller_that_runs_before_loss_detection_hears_no_newly_lost_data() {
    let (mut f, seen) = recorded(false);
    for k in 2..5 {
        f.sack(&[(1, k)]);
    }
    let s = seen.lock().unwrap();
    // (The third ACK's sample was taken before the recovery began.)
    assert_eq!(s.controls[2].1, 0);
    assert_eq!(s.marked.len(), 1);
}

#[test]
fn a_timeout_marks_everything_outstanding_lost_once() {
    let (mut f, seen) = recorded(true);
    f.timeout();
    let s = seen.lock().unwrap();
    // Ten segments, each sent with k + 1 out and 1000 (k + 1) lost by the
    // time it is marked.
    let got: Vec<(u64, u64)> = s.marked.iter().map(|m| (m.tx_in_flight, m.lost)).collect();
    let want: Vec<(u64, u64)> = (1..=10).map(|k| (k * MSS, k * MSS)).collect();
    assert_eq!(got, want);
    drop(s);
    // Going back N sends them again: no second marks.
    f.take();
    assert_eq!(seen.lock().unwrap().marked.len(), 10);
}

#[test]
fn an_ack_that_delivers_nothing_reports_no_loss() {
    let (mut f, seen) = recorded(true);
    for k in 2..5 {
        f.sack(&[(1, k)]);
    }
    // Segment 0 was marked lost; a duplicate ACK with nothing new SACKed
    // forms no sample (Linux's tcp_rate_gen returns before counting).
    f.sack(&[(1, 4)]);
    let s = seen.lock().unwrap();
    assert_eq!(s.controls.last(), Some(&(CaState::Recovery, 0, 0, 0)));
    // The flight before each ACK as Linux counts it: 10 out, less what was
    // SACKed before it (0, 1, 2, 3), less segment 0 once marked and until
    // resent (it went out at once, on the third ACK).
    assert_eq!(s.priors, [10 * MSS, 9 * MSS, 8 * MSS, 7 * MSS]);
}
