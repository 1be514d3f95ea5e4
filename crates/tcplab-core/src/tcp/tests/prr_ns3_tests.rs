// SPDX-License-Identifier: MIT OR Apache-2.0
//! What the ns3 profile does as ns-3 3.44 does it, pinned by hand-worked
//! traces: the threshold halves the pipe (`halve = "pipe"`), and PRR
//! follows `TcpPrrRecovery` as `TcpSocketBase` drives it (`prr_form =
//! "ns3"`), against the RFC forms of `recovery_tests.rs`.

use super::recovery_tests::{prr_one_loss_in_twenty_in, Trace};
use super::*;
use crate::cc::reno::{Halve, Reno};
use crate::tcp::PrrForm;

#[test]
fn halving_the_pipe_sets_ssthresh_two_segments_below_half_the_flight_with_sack() {
    // Twenty in flight, the first lost, PRR with SACK as ns-3 runs it: at
    // the third SACK, RFC 5681 halves the 20 outstanding, ns-3's
    // TcpNewReno the pipe of 16 (3 SACKed, the head counted lost).
    let threshold = |halve: Halve| {
        let mut cfg = config(20);
        cfg.recovery = Recovery::Prr;
        cfg.sack = true;
        let cc = Reno {
            halve,
            ..Reno::new(false)
        };
        let mut f = Fix::established_cc(Box::new(cc), cfg);
        assert_eq!(f.take(), segments(0, 20));
        f.advance(RTT);
        for j in 1..4 {
            f.sack(&[(1, j + 1)]);
        }
        assert_eq!(f.state(), CaState::Recovery);
        f.s.tcb().ssthresh / MSS
    };
    assert_eq!(threshold(Halve::Flightsize), 10);
    assert_eq!(threshold(Halve::Pipe), 8);
}

fn ns3_prr_one_loss_in_twenty(sack: bool) -> Trace {
    prr_one_loss_in_twenty_in(sack, PrrForm::Ns3).1
}

#[test]
fn ns3_prr_with_sack_counts_each_duplicate_twice_until_recover_fs() {
    // ssthresh 10, RecoverFS = the pipe at the start, 16 (segments 4-19;
    // 0 lost, 1-3 SACKed). Each ACK of segment j delivers its SACK plus a
    // segment while prr_delivered < 16, so prr_delivered = 2 (j - 2) up
    // to j = 10, then 16 + (j - 10). While pipe > ssthresh, sndcnt =
    // ceil(prr_delivered x 10 / 16) - prr_out and cwnd = pipe + sndcnt:
    //   j = 3: pipe 16, 1.25 segments: the retransmission;
    //   j = 4, 5: pipe 16, 17.5 and 17.75: one new segment each (20, 21);
    //   j = 6: pipe 16, 18.0: two (22, 23), pipe 18;
    //   j = 7, 8, 9: pipe 17, 18.25, 18.5, 18.75: one each (24, 25, 26);
    //   j = 10: pipe 17, 19.0: two (27, 28);
    //   j = 11: prr_delivered 17, pipe 18: 10.625 - 10 = 0.625: 18.625;
    //   j = 12..19: pipe 17, 17, 16, 16, 16, 15, 15, 15; cwnd 18.25 (29),
    //   17.875, 17.5 (30), 17.125 (31), 16.75, 16.375 (32), 16.0 (33),
    //   15.625.
    // The pipe never comes down to ssthresh in the recovery, where RFC
    // 9937's brings it to 10 (`prr_with_sack_spreads_the_reduction_over_the_acks_of_one_window`).
    let trace = ns3_prr_one_loss_in_twenty(true);
    let cwnds: Vec<f64> = trace.iter().map(|t| t.2).collect();
    assert_eq!(
        cwnds,
        vec![
            20.0, 20.0, 17.25, 17.5, 17.75, 18.0, 18.25, 18.5, 18.75, 19.0, 18.625, 18.25, 17.875,
            17.5, 17.125, 16.75, 16.375, 16.0, 15.625
        ]
    );
    let sent: Vec<(u64, Vec<(u64, u64)>)> = trace
        .into_iter()
        .filter(|t| !t.1.is_empty())
        .map(|t| (t.0, t.1))
        .collect();
    let new = |k: u64, n: u64| segments(k, n);
    assert_eq!(
        sent,
        vec![
            (3, vec![(seg(0), MSS)]),
            (4, new(20, 1)),
            (5, new(21, 1)),
            (6, new(22, 2)),
            (7, new(24, 1)),
            (8, new(25, 1)),
            (9, new(26, 1)),
            (10, new(27, 2)),
            (12, new(29, 1)),
            (14, new(30, 1)),
            (15, new(31, 1)),
            (17, new(32, 1)),
            (18, new(33, 1)),
        ]
    );
}

#[test]
fn ns3_prr_without_sack_reads_the_pipe_before_the_duplicates_report() {
    // RecoverFS = 20 - 3 reported - the lost head = 16 segments. Each
    // duplicate ACK delivers one segment (ns-3 adds it; its emulated SACK
    // is not yet in the pipe PRR reads, which is one segment above the
    // real one); sndcnt = ceil(prr_delivered x 10 / 16) - prr_out, at
    // least 0, and cwnd = the pipe read + sndcnt:
    //   j = 3: prr_delivered 1, pipe 16: forced to 17: the retransmission;
    //   j = 4: prr_delivered 2, pipe read 17: 1.25 - 1 = 0.25: 17.25;
    //   j = 5..18: prr_delivered j - 2, prr_out j - 2 > ceil((j - 2) 10 /
    //   16): sndcnt 0, cwnd = the pipe read, 17;
    //   j = 19: prr_delivered has reached RecoverFS: the ACK delivers
    //   nothing and cwnd stays at 17.
    // The real pipe is 16 each time: one new segment per duplicate ACK, so
    // the pipe never comes down in the recovery (RFC 9937's: to 10).
    let trace = ns3_prr_one_loss_in_twenty(false);
    let cwnds: Vec<f64> = trace.iter().map(|t| t.2).collect();
    let mut want = vec![20.0, 20.0, 17.0, 17.25];
    want.extend([17.0; 15]);
    assert_eq!(cwnds, want);
    let sends: Vec<(u64, usize)> = trace
        .iter()
        .filter(|(_, s, _)| !s.is_empty())
        .map(|(j, s, _)| (*j, s.len()))
        .collect();
    let want: Vec<(u64, usize)> = (3..20).map(|j| (j, 1)).collect();
    assert_eq!(sends, want);
    assert_eq!(trace[2].1, vec![(seg(0), MSS)]);
    assert_eq!(trace[3].1, segments(20, 1));
    assert_eq!(trace[18].1, segments(35, 1));
}
