// SPDX-License-Identifier: MIT OR Apache-2.0
//! The sender's answer to an ECN echo, form by form (`ecn_response`):
//! RFC 3168's immediate reduction, Linux's CWR state and ns-3 3.44's. One
//! fixture for all: NewReno with the prr recovery, no SACK, 21 segments in
//! flight, and the ACK of segment 0 echoing ECE. Reno's ssthresh is half
//! the 20 segments then in flight: 10. The numbers are worked out by hand
//! from the PRR formulas in each test's comment.

use super::*;

/// 21 segments in flight on an ECN-capable connection answering echoes by
/// `form`, one RTT on; then the ACK of segment 0 echoes ECE.
fn echoed(form: EcnResponse) -> Fix {
    // RFC 3168 6.1.1: an ECN-setup SYN-ACK has ECE and not CWR.
    let mut f = Fix::established_with("newreno", ecn_config(21, form), SYN | ACK | ECE);
    assert_eq!(f.take(), segments(0, 21));
    f.events();
    f.advance(RTT);
    f.ack_ece(seg(1), true);
    f
}

/// `n` segments of initial window, the prr recovery without SACK, ECN on,
/// answered by `form`.
fn ecn_config(n: u64, form: EcnResponse) -> TcpConfig {
    let mut cfg = config(n);
    cfg.recovery = Recovery::Prr;
    cfg.sack = false;
    cfg.ecn = true;
    cfg.ecn_response = form;
    cfg
}

impl Fix {
    fn ack_ece(&mut self, ack: u64, ece: bool) {
        let h = TcpHeader {
            ack,
            flags: if ece { ACK | ECE } else { ACK },
            wnd: 65_535,
            ..TcpHeader::default()
        };
        self.s.on_segment(self.now, &h, &mut self.out);
    }
}

/// From the echo on, each ACK of one more segment (segments 1, 2, ...
/// without ECE): (ACK of segment j, segments sent in answer, cwnd in
/// bytes), until CWR ends.
fn cwr_trace(f: &mut Fix) -> Vec<(u64, usize, u64)> {
    let mut trace = vec![(0, f.take().len(), f.s.tcb().cwnd)];
    let mut j = 1;
    while f.state() == CaState::Cwr {
        f.ack_ece(seg(j + 1), false);
        trace.push((j, f.take().len(), f.s.tcb().cwnd));
        j += 1;
    }
    trace
}

/// RFC 3168 6.1.2: cwnd = ssthresh at once, and the sender is silent until
/// the flight is below it: after the echo, 20 segments in flight and a
/// window of 10 segments growing by MSS^2/cwnd (about 100 B) per ACK, so
/// nothing leaves while the flight (20 - j segments at the ACK of segment
/// j) and one segment more exceed cwnd: up to the ACK of segment 10 (flight
/// 10, cwnd 10,956 < 11,000); the ACK of segment 11 (flight 9, cwnd above
/// 11,000) lets two out.
#[test]
fn immediate_sets_cwnd_to_ssthresh_at_once_and_goes_silent() {
    let mut f = echoed(EcnResponse::Immediate);
    assert_eq!(f.ssthresh_segments(), 10.0);
    assert_eq!(f.cwnd_segments(), 10.0);
    assert_eq!(f.state(), CaState::Open);
    assert!(f.take().is_empty());
    for j in 1..=10 {
        f.ack_ece(seg(j + 1), false);
        assert!(f.take().is_empty(), "ACK of segment {j}");
    }
    assert_eq!(f.s.tcb().cwnd, 10_956);
    f.ack_ece(seg(12), false);
    assert_eq!(f.take(), segments(21, 2));
    assert_eq!(f.s.stats().ecn_reductions, 1);
}

/// Linux's CWR: RecoverFS = the window before the reduction (21 segments).
/// The echoing ACK delivers one segment: sndcnt = ceil(1000 x 10,000 /
/// 21,000) = 477 B, raised to one segment because nothing has been sent
/// yet: cwnd = pipe 20,000 + 1,000 and segment 21 leaves. After that,
/// prr_delivered = (j + 1) segments at the ACK of segment j and sndcnt =
/// ceil((j + 1) x 10,000 / 21) - prr_out, so a segment leaves about every
/// 2.1 ACKs: at the ACKs of segments 4, 6, ..., 16 (cwnd 18,381 at 4:
/// ceil(5,000 x 10/21) = 2,381, less 1,000 sent, on pipe 17,000). At the
/// ACK of segment 18 pipe reaches ssthresh (10,000) and from then the
/// reduction bound holds it there, one segment per ACK (with SafeACK's
/// extra segment capped by ssthresh - pipe). The ACK of segment 21, the
/// first above the 21 segments sent when CWR began, ends it: cwnd =
/// ssthresh, and that ACK grows it as in Open (+100 B); with 9 segments
/// left in flight it lets one out.
#[test]
fn linux_paces_the_reduction_by_prr_against_the_window_before_it() {
    let mut f = echoed(EcnResponse::Linux);
    assert_eq!(f.state(), CaState::Cwr);
    assert_eq!(f.ssthresh_segments(), 10.0);
    assert_eq!(f.events(), vec![TcpEventKind::EcnReduction]);
    let want = vec![
        (0, 1, 21_000),
        (1, 0, 20_000),
        (2, 0, 19_429),
        (3, 0, 18_905),
        (4, 1, 18_381),
        (5, 0, 17_858),
        (6, 1, 17_334),
        (7, 0, 16_810),
        (8, 1, 16_286),
        (9, 0, 15_762),
        (10, 1, 15_239),
        (11, 0, 14_715),
        (12, 1, 14_191),
        (13, 0, 13_667),
        (14, 1, 13_143),
        (15, 0, 12_620),
        (16, 1, 12_096),
        (17, 0, 11_572),
        (18, 0, 10_000),
        (19, 1, 10_000),
        (20, 1, 10_000),
        (21, 1, 10_100),
    ];
    assert_eq!(cwr_trace(&mut f), want);
    assert_eq!(f.state(), CaState::Open);
    assert_eq!(f.s.stats().ecn_reductions, 1);
    assert_eq!(f.s.stats().fast_retransmits, 0);
}

/// ns-3 3.44's CWR: RecoverFS = the bytes in flight after the echoing ACK
/// (20 segments), and that ACK counted twice plus a segment: prr_delivered
/// = 2,000 (EnterRecovery's DoRecovery as for a duplicate ACK) then 3,000
/// (ProcessAck's), sndcnt = ceil(3,000 x 10/20) = 1,500: cwnd 21,500, one
/// segment out. Then prr_delivered = (j + 2) segments at the ACK of
/// segment j, sndcnt = (j + 2) x 500 - prr_out: a segment at every even j,
/// cwnd falling by 500 B per ACK, and with no SafeACK bound the pipe never
/// reaches ssthresh before the ACK of segment 21 ends CWR (cwnd = 10,000,
/// +100 B of growth). One segment more than Linux's form in all (11).
#[test]
fn ns3_counts_the_entering_ack_twice_against_the_flight_after_it() {
    let mut f = echoed(EcnResponse::Ns3);
    assert_eq!(f.state(), CaState::Cwr);
    assert_eq!(f.ssthresh_segments(), 10.0);
    let trace = cwr_trace(&mut f);
    let mut want = vec![(0, 1, 21_500)];
    for j in 1..21u64 {
        want.push((j, (j % 2 == 1) as usize, 21_500 - 500 * j));
    }
    want.push((21, 0, 10_100));
    assert_eq!(trace, want);
    let sent: usize = trace.iter().map(|t| t.1).sum();
    assert_eq!(sent, 11);
}

/// Linux: three duplicate ACKs in CWR reveal a loss, and the reduction
/// under way continues as the recovery: no second ssthresh (still 10),
/// PRR's counts kept. Worked: after the echo prr_out = 1,000 (segment 21);
/// each duplicate reports a segment delivered, pipe = flight 21,000 less
/// the duplicates; at the third, pipe also leaves out the lost first
/// segment (17,000), prr_delivered = 4,000, sndcnt = ceil(4,000 x 10/21) -
/// 1,000 = 905: cwnd 17,905, no room yet; the fourth (pipe 16,000,
/// sndcnt 1,381, cwnd 17,381) lets the retransmission of segment 1 out.
#[test]
fn linux_continues_the_reduction_as_the_recovery_when_a_loss_shows() {
    let mut f = echoed(EcnResponse::Linux);
    f.take();
    f.events();
    for _ in 0..2 {
        f.dupack();
        assert_eq!(f.state(), CaState::Cwr);
    }
    f.dupack();
    assert_eq!(f.state(), CaState::Recovery);
    assert_eq!(f.ssthresh_segments(), 10.0);
    assert_eq!(f.s.tcb().cwnd, 17_905);
    assert_eq!(f.events(), vec![TcpEventKind::FastRetransmit]);
    assert!(f.take().is_empty());
    f.dupack();
    assert_eq!(f.s.tcb().cwnd, 17_381);
    assert_eq!(f.take(), segments(1, 1));
    assert_eq!(f.s.stats().fast_retransmits, 1);
    assert_eq!(f.s.stats().ecn_reductions, 1);
}

/// ns-3 3.44: duplicate ACKs in CWR are only counted: cwnd stays, nothing
/// is retransmitted and no recovery starts, however many arrive.
#[test]
fn ns3_leaves_duplicate_acks_in_cwr_alone() {
    let mut f = echoed(EcnResponse::Ns3);
    f.take();
    let cwnd = f.s.tcb().cwnd;
    for _ in 0..5 {
        f.dupack();
        assert_eq!(f.state(), CaState::Cwr);
        assert_eq!(f.s.tcb().cwnd, cwnd);
        assert!(f.take().is_empty());
    }
    assert_eq!(f.s.stats().fast_retransmits, 0);
}

/// Linux reacts to an echo on a duplicate ACK too (it enters CWR from
/// Disorder); ns-3 only to ACKs of new data.
#[test]
fn an_echo_on_a_duplicate_ack_enters_cwr_in_linux_only() {
    for (form, cwr) in [(EcnResponse::Linux, true), (EcnResponse::Ns3, false)] {
        let mut f = echoed(form);
        // Back to Open: the ACK above the 22 segments sent by now ends CWR.
        while f.state() == CaState::Cwr {
            let next = f.s.tcb().snd_una + MSS;
            f.ack_ece(next, false);
        }
        f.take();
        let una = f.s.tcb().snd_una;
        f.ack_ece(una, true);
        assert_eq!(f.state() == CaState::Cwr, cwr, "{form:?}");
        assert_eq!(f.s.stats().ecn_reductions, 1 + cwr as u32, "{form:?}");
    }
}

/// ns-3 3.44 answers an echo in a recovery too: CWR takes its place, with
/// a second ssthresh. Linux ignores it (the recovery's reduction stands).
#[test]
fn an_echo_in_recovery_replaces_it_with_cwr_in_ns3_only() {
    for (form, state) in [
        (EcnResponse::Linux, CaState::Recovery),
        (EcnResponse::Ns3, CaState::Cwr),
    ] {
        let mut f = Fix::established_with("newreno", ecn_config(20, form), SYN | ACK | ECE);
        f.advance(RTT);
        for _ in 0..3 {
            f.dupack();
        }
        assert_eq!(f.state(), CaState::Recovery);
        assert_eq!(f.ssthresh_segments(), 10.0);
        // A partial ACK of segments 0 to 4 that echoes.
        f.ack_ece(seg(5), true);
        assert_eq!(f.state(), state, "{form:?}");
        let want = if state == CaState::Cwr { 1 } else { 0 };
        assert_eq!(f.s.stats().ecn_reductions, want, "{form:?}");
    }
}
