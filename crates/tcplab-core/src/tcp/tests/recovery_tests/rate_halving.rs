// SPDX-License-Identifier: MIT OR Apache-2.0
//! The rate_halving recovery (TCP-Linux's), pinned by traces worked out by
//! hand: the retransmission alone, one segment per two ACKs down to the
//! floor, the exit at the flight plus three, and the lost retransmissions
//! found as TCP-Linux's scoreboard finds them.

use super::*;

/// A rate-halving sender with twenty segments in flight; `half`: its floor
/// is ssthresh / 2 (2.6.22's `tcp_reno_min_cwnd`).
fn rate_halving_window(half: bool) -> Fix {
    let mut cfg = config(20);
    cfg.recovery = Recovery::RateHalving;
    cfg.sack = true;
    if half {
        cfg.rate_halving_floor = crate::tcp::RateHalvingFloor::HalfSsthresh;
    }
    let mut f = Fix::established("newreno", cfg);
    assert_eq!(f.take(), segments(0, 20));
    f.advance(RTT);
    f
}

/// A controller with Reno's ssthresh (half the window) and its own
/// `min_cwnd` of `floor` segments (as 2.6.22's Westwood+'s estimate), which
/// never grows the window.
#[derive(Clone, Debug)]
struct Floor(u64);

impl crate::cc::CongestionControl for Floor {
    fn name(&self) -> &'static str {
        "floor"
    }
    fn increase_window(&mut self, _: &mut crate::cc::Tcb, _: &crate::cc::Ack) {}
    fn ssthresh(&mut self, tcb: &crate::cc::Tcb, _: crate::cc::LossCause) -> u64 {
        tcb.cwnd / 2
    }
    fn min_cwnd(&self, tcb: &crate::cc::Tcb) -> Option<u64> {
        Some(self.0 * tcb.mss)
    }
}

/// As [`rate_halving_window`], with [`Floor`]'s floor of `floor` segments.
fn rate_halving_floor(floor: u64) -> Fix {
    let mut cfg = config(20);
    cfg.recovery = Recovery::RateHalving;
    cfg.sack = true;
    let mut f = Fix::established_cc(Box::new(Floor(floor)), cfg);
    assert_eq!(f.take(), segments(0, 20));
    f.advance(RTT);
    f
}

/// SACKs of segments 1..=j for j in `js` (segment 0 lost): per ACK, what
/// was sent in answer and cwnd in segments.
fn sack_from_one(f: &mut Fix, js: std::ops::RangeInclusive<u64>) -> Trace {
    js.map(|j| {
        f.sack(&[(1, j + 1)]);
        (j, f.take(), f.cwnd_segments())
    })
    .collect()
}

#[test]
fn rate_halving_sends_the_retransmission_alone_then_one_segment_for_two_acks() {
    // ssthresh 10 = the floor. Per SACK of segment j, pipe = 1 (segment
    // 0's retransmission) + (19 - j) + the new segments sent so far:
    //   j = 3: the recovery starts; pipe 16 without the lost head, the
    //     allowance min(20, 16 + 1) = 17: the retransmission alone, then
    //     allowance = pipe - 1 = 16;
    //   j odd from 5: pipe is one below the allowance: one new segment,
    //     and the allowance falls by one (cwnd shown 15, 14, ... 10);
    //   j even: pipe equals the allowance: nothing;
    //   j = 17, 18, 19: the allowance is under the floor, which holds the
    //     window at 10: one segment per ACK.
    let mut f = rate_halving_window(false);
    let trace = sack_from_one(&mut f, 1..=19);
    let sent: Vec<(u64, Vec<(u64, u64)>)> = trace.iter().map(|t| (t.0, t.1.clone())).collect();
    let mut want = vec![(3, vec![(seg(0), MSS)])];
    for (k, j) in [5, 7, 9, 11, 13, 15, 17, 18, 19].into_iter().enumerate() {
        want.push((j, segments(20 + k as u64, 1)));
    }
    assert_eq!(
        sent.into_iter()
            .filter(|s| !s.1.is_empty())
            .collect::<Vec<_>>(),
        want
    );
    let cwnds: Vec<f64> = trace.iter().map(|t| t.2).collect();
    assert_eq!(
        cwnds,
        vec![
            20.0, 20.0, 16.0, 16.0, 15.0, 15.0, 14.0, 14.0, 13.0, 13.0, 12.0, 12.0, 11.0, 11.0,
            10.0, 10.0, 10.0, 10.0, 10.0
        ]
    );
    assert_eq!(f.ssthresh_segments(), 10.0);
    // The retransmission's ACK ends the recovery with cwnd = ssthresh (the
    // floor is ssthresh: no moderation), as PRR's does.
    ends_at_ssthresh_of_ten_beside_nine_new(&mut f);
}

/// The SACKs of 1..=19 with a floor below ssthresh 10: as in the first
/// test until j = 16; then the floor no longer holds the window: j = 17
/// sends and shows 9, j = 18 (pipe 9 = allowance) waits, j = 19 sends and
/// shows 8.
fn halves_below_ten_from_the_sack_of_seventeen(f: &mut Fix) {
    let trace = sack_from_one(f, 1..=19);
    let tail: Vec<(u64, usize, f64)> = trace[14..].iter().map(|t| (t.0, t.1.len(), t.2)).collect();
    assert_eq!(
        tail,
        vec![
            (15, 1, 10.0),
            (16, 0, 10.0),
            (17, 1, 9.0),
            (18, 0, 9.0),
            (19, 1, 8.0)
        ]
    );
}

#[test]
fn rate_halving_with_half_the_threshold_as_floor_keeps_halving_below_ssthresh() {
    // The floor is 5.
    let mut f = rate_halving_window(true);
    halves_below_ten_from_the_sack_of_seventeen(&mut f);
    assert_eq!(f.s.tcb().snd_max, seg(28));
}

#[test]
fn rate_halving_ends_a_long_recovery_at_the_flight_plus_three_segments() {
    // Segments 0 and 19 lost, floor ssthresh / 2 = 5. After the SACKs of
    // 1..=18 (as above: new segments 20 to 26 sent, allowance 9), the next
    // round trip:
    //   partial ACK of 19: pipe 1 (19) + 7 = 8 < 9: segment 27, allowance 8;
    //   SACK 20: pipe 8 = allowance: nothing;
    //   SACK 20-21: pipe 7: segment 28, allowance 7;
    //   SACK 20-22: 19 is lost (three segments SACKed above it): pipe 6:
    //     its retransmission, allowance 6;
    //   SACK 20-23: pipe 6: nothing; 20-24: pipe 5: segment 29, allowance 5;
    //   SACK 20-25: pipe 5: nothing; 20-26: pipe 4: segment 30, allowance 4
    //     (the window shown stays at the floor, 5).
    // The retransmission of 19 is ACKed (up to 27): four segments (27 to
    // 30) in flight, cwnd = min(ssthresh 10, 4 + 3) = 7: three new ones.
    let mut f = rate_halving_window(true);
    sack_from_one(&mut f, 1..=18);
    f.advance(RTT);
    let mut sent = Vec::new();
    f.ack_sack(19, &[]);
    sent.push(f.take());
    for k in 21..=27 {
        f.ack_sack(19, &[(20, k)]);
        sent.push(f.take());
    }
    assert_eq!(
        sent,
        vec![
            segments(27, 1),
            vec![],
            segments(28, 1),
            segments(19, 1),
            vec![],
            segments(29, 1),
            vec![],
            segments(30, 1),
        ]
    );
    assert_eq!(f.cwnd_segments(), 5.0);
    f.ack_sack(27, &[]);
    assert_eq!(f.state(), CaState::Open);
    assert_eq!(f.cwnd_segments(), 7.0);
    assert_eq!(f.take(), segments(31, 3));
}

#[test]
fn rate_halving_resends_a_retransmission_once_data_sent_after_it_is_sacked() {
    // As in the first rate-halving test, segment 0's retransmission (sent
    // at the SACK of 3, when snd_max was 20) is lost, and new segments 20
    // to 28 followed it. The next round trip's first SACK covers segment
    // 20: the retransmission is lost again (TCP-Linux's scoreboard). pipe
    // = 9 (its retransmission and 21..=28) less the lost one = 8 against
    // the floor of 10: segment 0 again, then new segment 29.
    let mut f = rate_halving_window(false);
    sack_from_one(&mut f, 1..=19);
    f.advance(RTT);
    f.sack(&[(1, 21)]);
    let mut want = segments(0, 1);
    want.extend(segments(29, 1));
    assert_eq!(f.take(), want);
    assert_eq!(f.state(), CaState::Recovery);
    // Its ACK (everything up to 29 but 29 itself) ends the recovery without
    // a timeout.
    f.advance(RTT);
    f.ack_sack(29, &[]);
    assert_eq!(f.state(), CaState::Open);
    assert_eq!(f.s.stats().timeouts, 0);
}

#[test]
fn rate_halving_resends_a_retransmission_once_one_sent_four_later_is_sacked() {
    // Segments 0 to 6 lost of twenty. The SACKs of 7 to 19: the recovery
    // starts at the SACK of 9 (three SACKed above segment 0) with the
    // retransmission of 0; from the SACK of 11 each SACK frees one segment
    // of pipe against the floor of 10: the retransmissions of 1 to 6 (ids
    // 1 to 6, each sent before any new data), then new segments 20 to 22.
    let mut f = rate_halving_window(false);
    let mut sent = Vec::new();
    for j in 7..=19 {
        f.sack(&[(7, j + 1)]);
        sent.extend(f.take());
    }
    let mut want: Vec<(u64, u64)> = (0..=6).flat_map(|k| segments(k, 1)).collect();
    want.extend(segments(20, 3));
    assert_eq!(sent, want);
    // The retransmission of 0 is lost; those of 1 to 5 are SACKed in turn,
    // each ACK sending one new segment (23 to 26). The SACK of 5 (id 5)
    // shows id 0, four or more retransmissions older, lost: 0 goes out
    // again before the new segment 27. Nothing sent after 0's first
    // retransmission but other retransmissions has been SACKed yet.
    f.advance(RTT);
    let mut answers = Vec::new();
    for k in 2..=6 {
        f.sack(&[(1, k), (7, 20)]);
        answers.push(f.take());
    }
    let mut last = segments(0, 1);
    last.extend(segments(27, 1));
    assert_eq!(
        answers,
        vec![
            segments(23, 1),
            segments(24, 1),
            segments(25, 1),
            segments(26, 1),
            last
        ]
    );
}

#[test]
fn rate_halving_holds_the_window_at_a_controllers_min_cwnd_above_ssthresh_and_ends_there() {
    // ssthresh 10 (half of 20), the controller's floor 15: as in the first
    // rate-halving test the allowance falls one segment per two ACKs, but
    // the window shown stops at 15 (from the SACK of 5): after the
    // retransmission and one segment at j = 5, pipe sits at 15 after
    // j = 6, and from j = 7 each SACK sends one segment. The ACK that ends
    // the recovery leaves cwnd at the floor (TCP-Linux raises cwnd to
    // ssthresh only when it is below), not at ssthresh.
    let mut f = rate_halving_floor(15);
    let trace = sack_from_one(&mut f, 1..=19);
    assert_eq!(f.ssthresh_segments(), 10.0);
    let cwnds: Vec<f64> = trace.iter().map(|t| t.2).collect();
    assert_eq!(
        cwnds,
        vec![
            20.0, 20.0, 16.0, 16.0, 15.0, 15.0, 15.0, 15.0, 15.0, 15.0, 15.0, 15.0, 15.0, 15.0,
            15.0, 15.0, 15.0, 15.0, 15.0
        ]
    );
    let sends: usize = trace.iter().map(|t| t.1.len()).sum();
    assert_eq!(sends, 1 + 1 + 13);
    f.advance(RTT);
    f.ack(seg(20));
    assert_eq!(f.state(), CaState::Open);
    assert_eq!(f.cwnd_segments(), 15.0);
}

#[test]
fn rate_halving_keeps_halving_down_to_a_controllers_min_cwnd_below_ssthresh() {
    // A floor of 2 under ssthresh 10: the window shown follows the
    // allowance below 10 (as with half the threshold as floor), and the
    // recovery ends at min(ssthresh, flight + 3).
    let mut f = rate_halving_floor(2);
    halves_below_ten_from_the_sack_of_seventeen(&mut f);
    // Segments 20 to 27 in flight: cwnd = min(10, 8 + 3) = 10.
    f.advance(RTT);
    f.ack(seg(20));
    assert_eq!(f.cwnd_segments(), 10.0);
}
