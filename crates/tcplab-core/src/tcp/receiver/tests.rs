// SPDX-License-Identifier: MIT OR Apache-2.0
//! The receiver's unit tests.

use super::*;
use crate::time::SimDuration;

fn cfg(delack: u16, sack: bool) -> TcpConfig {
    TcpConfig {
        sack,
        delayed_ack: delack,
        ..TcpConfig::for_tests(100, 3)
    }
}

fn data(seq: u64, len: u32) -> TcpHeader {
    TcpHeader {
        seq,
        len,
        flags: ACK,
        ..TcpHeader::default()
    }
}

fn t(ms: u64) -> SimTime {
    SimTime::ZERO + SimDuration::from_millis(ms)
}

fn established(delack: u16, sack: bool) -> Receiver {
    established_with(&cfg(delack, sack))
}

fn established_with(c: &TcpConfig) -> Receiver {
    let mut r = Receiver::new(c);
    let synack = r.on_segment(
        t(0),
        &TcpHeader {
            flags: SYN,
            ..TcpHeader::default()
        },
    );
    assert_eq!(synack.ack.unwrap().flags, SYN | ACK);
    r.on_segment(
        t(1),
        &TcpHeader {
            seq: 1,
            ack: 1,
            flags: ACK,
            ..TcpHeader::default()
        },
    );
    assert_eq!(r.state, RcvState::Established);
    r
}

#[test]
fn opened_without_a_handshake_the_receiver_takes_byte_1_first() {
    let mut r = Receiver::new(&cfg(1, false));
    r.open_established();
    assert_eq!(r.state, RcvState::Established);
    let o = r.on_segment(t(10), &data(1, 100));
    assert_eq!((o.delivered, o.ack.unwrap().ack), (100, 101));
}

#[test]
fn delayed_ack_every_second_segment_or_timer() {
    let mut r = established(2, false);
    let o = r.on_segment(t(10), &data(1, 100));
    assert_eq!(o.ack, None);
    assert_eq!(r.delack_deadline, Some(t(210)));
    let o = r.on_segment(t(11), &data(101, 100));
    assert_eq!(o.ack.unwrap().ack, 201);
    assert_eq!(r.delack_deadline, None);
    r.on_segment(t(20), &data(201, 100));
    assert_eq!(r.on_delack_timer(t(219)), None);
    let mut r2 = established(2, false);
    r2.on_segment(t(20), &data(1, 100));
    assert_eq!(r2.on_delack_timer(t(220)).unwrap().ack, 101);
    assert_eq!(r.delivered, 300);
}

#[test]
fn quick_acks_answer_the_first_data_segments_at_once_then_every_second() {
    // ns-3: the first data segment is ACKed at once, so the pairs
    // start at the second (1, 2-3, 4-5, ...).
    let mut r = established_with(&TcpConfig {
        quick_acks: 1,
        ..cfg(2, false)
    });
    // The handshake's bare ACK used none of them.
    assert_eq!(r.on_segment(t(10), &data(1, 100)).ack.unwrap().ack, 101);
    assert_eq!(r.on_segment(t(11), &data(101, 100)).ack, None);
    assert_eq!(r.on_segment(t(12), &data(201, 100)).ack.unwrap().ack, 301);
    assert_eq!(r.on_segment(t(13), &data(301, 100)).ack, None);
    assert_eq!(r.delack_deadline, Some(t(213)));
    // Without them the first two segments share an ACK.
    let mut r = established(2, false);
    assert_eq!(r.on_segment(t(10), &data(1, 100)).ack, None);
    assert_eq!(r.on_segment(t(11), &data(101, 100)).ack.unwrap().ack, 201);
}

#[test]
fn out_of_order_is_acked_at_once_with_sack_blocks_most_recent_first() {
    let mut r = established(2, true);
    r.on_segment(t(10), &data(1, 100));
    let o = r.on_segment(t(11), &data(201, 100)); // hole at 101
    let a = o.ack.unwrap();
    assert_eq!((a.ack, a.sack_blocks()), (101, &[(201, 301)][..]));
    assert_eq!(a.opt_len, 12);
    let a = r.on_segment(t(12), &data(401, 100)).ack.unwrap();
    assert_eq!(a.sack_blocks(), &[(401, 501), (201, 301)]);
    let a = r.on_segment(t(13), &data(301, 100)).ack.unwrap();
    assert_eq!(a.sack_blocks(), &[(201, 501)]);
    // Filling the hole is ACKed at once and delivers everything.
    let o = r.on_segment(t(14), &data(101, 100));
    assert_eq!(o.ack.unwrap().ack, 501);
    assert_eq!(o.delivered, 400);
    assert_eq!(r.delivered, 500);
}

#[test]
fn duplicates_are_acked_and_not_delivered_twice() {
    let mut r = established(1, false);
    r.on_segment(t(10), &data(1, 100));
    let o = r.on_segment(t(11), &data(1, 100));
    assert_eq!(o.ack.unwrap().ack, 101);
    assert_eq!(o.delivered, 0);
    assert_eq!(r.delivered, 100);
}

#[test]
fn a_fin_before_missing_data_is_accepted_once_the_hole_fills() {
    let mut r = established(2, false);
    r.on_segment(t(10), &data(1, 100));
    let fin = TcpHeader {
        seq: 201,
        flags: ACK | FIN,
        ..TcpHeader::default()
    };
    assert_eq!(r.on_segment(t(11), &fin).ack.unwrap().ack, 101); // hole at 101
    assert!(!r.fin_received);
    let o = r.on_segment(t(12), &data(101, 100));
    assert_eq!(o.ack.unwrap().ack, 202); // data and the FIN
    assert!(r.fin_received);
}

#[test]
fn syn_ack_window_is_unscaled() {
    let mut r = Receiver::new(&cfg(2, false)); // 1 MiB buffer, shift 5
    let synack = r.on_segment(
        t(0),
        &TcpHeader {
            flags: SYN,
            ..TcpHeader::default()
        },
    );
    assert_eq!(synack.ack.unwrap().wnd, 65_535);
    r.on_segment(
        t(1),
        &TcpHeader {
            seq: 1,
            ack: 1,
            flags: ACK,
            ..TcpHeader::default()
        },
    );
    let a = r.on_segment(t(2), &data(1, 100)).ack;
    assert_eq!(a, None);
    let a = r.on_segment(t(3), &data(101, 100)).ack.unwrap();
    assert_eq!(a.wnd as u64, (1u64 << 20) >> 5);
}

#[test]
fn fin_is_acked_and_consumes_a_sequence_number() {
    let mut r = established(2, false);
    r.on_segment(t(10), &data(1, 100));
    let fin = TcpHeader {
        seq: 101,
        flags: ACK | FIN,
        ..TcpHeader::default()
    };
    assert_eq!(r.on_segment(t(11), &fin).ack.unwrap().ack, 102);
    assert!(r.fin_received);
}

// ---- D-SACK (RFC 2883) ------------------------------------------------------

fn dsack_cfg(on: bool, timestamps: bool) -> TcpConfig {
    TcpConfig {
        dsack: on,
        timestamps,
        ..cfg(2, true)
    }
}

#[test]
fn a_duplicate_below_rcv_nxt_is_acked_at_once_with_one_dsack_block_not_repeated() {
    let mut r = established_with(&dsack_cfg(true, false));
    r.on_segment(t(10), &data(1, 100));
    assert_eq!(r.on_segment(t(11), &data(101, 100)).ack.unwrap().ack, 201);
    let a = r.on_segment(t(12), &data(1, 100)).ack.unwrap();
    assert_eq!((a.ack, a.sack_blocks()), (201, &[(1, 101)][..]));
    assert_eq!(a.opt_len, 12); // 2 + 8, padded
    assert_eq!(crate::tcp::dsack::dsack_block(&a), Some((1, 101)));
    // The next ACK does not report it again.
    r.on_segment(t(13), &data(201, 100));
    let a = r.on_segment(t(14), &data(301, 100)).ack.unwrap();
    assert_eq!((a.ack, a.nsack), (401, 0));
    // Switched off, the duplicate gets a bare ACK.
    let mut r = established_with(&dsack_cfg(false, false));
    r.on_segment(t(10), &data(1, 100));
    let a = r.on_segment(t(12), &data(1, 100)).ack.unwrap();
    assert_eq!((a.ack, a.nsack), (101, 0));
}

#[test]
fn a_duplicate_of_held_data_reports_dsack_then_the_block_holding_it() {
    let mut r = established_with(&dsack_cfg(true, false));
    r.on_segment(t(10), &data(1, 100));
    r.on_segment(t(11), &data(201, 100)); // hole at 101
    let a = r.on_segment(t(12), &data(401, 100)).ack.unwrap();
    assert_eq!(a.sack_blocks(), &[(401, 501), (201, 301)]);
    let a = r.on_segment(t(13), &data(201, 100)).ack.unwrap();
    assert_eq!(a.ack, 101);
    assert_eq!(a.sack_blocks(), &[(201, 301), (201, 301), (401, 501)]);
    assert_eq!(crate::tcp::dsack::dsack_block(&a), Some((201, 301)));
    // A partial overlap reports the overlap (tcp_data_queue_ofo).
    let a = r.on_segment(t(14), &data(451, 100)).ack.unwrap();
    assert_eq!(a.sack_blocks(), &[(451, 501), (401, 551), (201, 301)]);
    // With timestamps the option has room for three blocks in all.
    let mut r = established_with(&dsack_cfg(true, true));
    r.on_segment(t(10), &data(1, 100));
    for s in [201, 401, 601] {
        r.on_segment(t(11), &data(s, 100));
    }
    let a = r.on_segment(t(12), &data(401, 100)).ack.unwrap();
    assert_eq!(a.sack_blocks(), &[(401, 501), (401, 501), (601, 701)]);
    assert_eq!(a.opt_len, 12 + 28); // timestamps, then 2 + 3 * 8 padded
}

#[test]
fn partial_duplicates_report_their_old_part() {
    let mut r = established_with(&dsack_cfg(true, false));
    r.on_segment(t(10), &data(1, 100));
    r.on_segment(t(11), &data(101, 100));
    // Starts below RCV.NXT (201), brings 50 new bytes: [151, 201) is old.
    let o = r.on_segment(t(12), &data(151, 100));
    assert_eq!((o.ack, o.delivered), (None, 50));
    let a = r.on_delack_timer(t(212)).unwrap();
    assert_eq!((a.ack, a.sack_blocks()), (251, &[(151, 201)][..]));
    // An in-order segment that runs into held data: [held start, its end).
    let mut r = established_with(&dsack_cfg(true, false));
    r.on_segment(t(10), &data(1, 100));
    r.on_segment(t(11), &data(201, 100));
    let a = r.on_segment(t(12), &data(101, 150)).ack.unwrap();
    assert_eq!((a.ack, a.sack_blocks()), (301, &[(201, 251)][..]));
}

// ---- Linux's delayed and quick ACKs ------------------------------------------

fn linux_cfg(rcv_buf: u64) -> TcpConfig {
    TcpConfig {
        ack_timing: AckTiming::Linux,
        rcv_buf,
        min_rto: SimDuration::from_millis(200),
        ..cfg(2, false)
    }
}

/// A receiver whose handshake took `rtt_ms` (SYN at 0).
fn linux_established(c: &TcpConfig, rtt_ms: u64) -> Receiver {
    let mut r = Receiver::new(c);
    let syn = TcpHeader {
        flags: SYN,
        ..TcpHeader::default()
    };
    r.on_segment(t(0), &syn);
    let ack = TcpHeader {
        seq: 1,
        ack: 1,
        flags: ACK,
        ..TcpHeader::default()
    };
    r.on_segment(t(rtt_ms), &ack);
    r
}

fn ato_ms(r: &Receiver) -> u64 {
    r.linux_ack().unwrap().ato.as_nanos() / 1_000_000
}

#[test]
fn linux_acks_the_first_16_segments_at_once_then_every_second() {
    // rcv_wnd / (2 rcv_mss) = 2^20 / 200 > 16: TCP_MAX_QUICKACKS.
    let mut r = linux_established(&linux_cfg(1 << 20), 1);
    let mut acked = vec![];
    for i in 0..24u64 {
        let o = r.on_segment(t(10 + i), &data(1 + 100 * i, 100));
        acked.push(o.ack.is_some());
    }
    let want: Vec<bool> = (0..24).map(|i| i < 16 || (i - 16) % 2 == 1).collect();
    assert_eq!(acked, want);
    // Then ato is back at 40 ms, and the timer waits that long.
    r.on_segment(t(40), &data(2401, 100));
    assert_eq!(r.delack_deadline, Some(t(80)));
    // The fixed timing pairs them from the start.
    let mut r = established(2, false);
    assert_eq!(r.on_segment(t(10), &data(1, 100)).ack, None);
}

#[test]
fn linux_ato_follows_the_inter_arrival_times_and_the_timer() {
    // srtt 100 ms, rto = 100 + max(200, 200) = 300 ms; 2 quick ACKs
    // (400 B / (2 * 100 B)).
    let mut r = linux_established(&linux_cfg(400), 100);
    let l = r.linux_ack().unwrap();
    assert_eq!(
        (l.srtt, l.rto),
        (
            Some(SimDuration::from_millis(100)),
            SimDuration::from_millis(300)
        )
    );
    assert!(r.on_segment(t(1000), &data(1, 100)).ack.is_some()); // first: ato 40
    assert!(r.on_segment(t(1010), &data(101, 100)).ack.is_some()); // m 10: 20 + 20
    assert_eq!((ato_ms(&r), r.linux_ack().unwrap().quick), (40, 0));
    // m = 30 < ato: ato = 40/2 + 30 = 50; the timer min(50, srtt 100).
    assert_eq!(r.on_segment(t(1040), &data(201, 100)).ack, None);
    assert_eq!((ato_ms(&r), r.delack_deadline), (50, Some(t(1090))));
    // The timer fires: ato = min(2 * 50, rto).
    assert_eq!(r.on_delack_timer(t(1090)).unwrap().ack, 301);
    assert_eq!(ato_ms(&r), 100);
    // m = 110 >= ato: unchanged; the timer min(100, srtt 100).
    assert_eq!(r.on_segment(t(1150), &data(301, 100)).ack, None);
    assert_eq!((ato_ms(&r), r.delack_deadline), (100, Some(t(1250))));
    // m = 50: ato = 50 + 50; two segments unacknowledged: ACKed now.
    assert!(r.on_segment(t(1200), &data(401, 100)).ack.is_some());
    assert_eq!(ato_ms(&r), 100);
    // m = 60: ato = 50 + 60 = 110, the timer still bounded by the srtt.
    r.on_segment(t(1260), &data(501, 100));
    assert_eq!((ato_ms(&r), r.delack_deadline), (110, Some(t(1360))));
    assert!(r.on_delack_timer(t(1360)).is_some());
    assert_eq!(ato_ms(&r), 220);
    // m = 140: ato = 110 + 140 = 250 (below the rto).
    r.on_segment(t(1400), &data(601, 100));
    assert_eq!((ato_ms(&r), r.delack_deadline), (250, Some(t(1500))));
    assert!(r.on_delack_timer(t(1500)).is_some());
    assert_eq!(ato_ms(&r), 300); // min(500, rto)
                                 // Idle 400 ms > rto: quick-ACK mode again (2 ACKs), ato kept.
    assert!(r.on_segment(t(1900), &data(701, 100)).ack.is_some());
    assert_eq!(r.linux_ack().unwrap().quick, 1);
    assert!(r.on_segment(t(1901), &data(801, 100)).ack.is_some());
    assert_eq!(ato_ms(&r), 40); // the last quick ACK resets it
}

#[test]
fn linux_timer_never_moves_later_and_fires_early_when_nearly_due() {
    // 2^20 B window; after the 16 quick ACKs, 50-byte segments (below one
    // rcv_mss each) wait for the timer.
    let mut r = linux_established(&linux_cfg(1 << 20), 1);
    for i in 0..16u64 {
        r.on_segment(t(10 + i), &data(1 + 100 * i, 100));
    }
    assert_eq!(r.on_segment(t(100), &data(1601, 50)).ack, None);
    assert_eq!(r.delack_deadline, Some(t(140))); // ato 40
                                                 // Due within ato / 4 = 10 ms of the next arrival: sent now.
    assert!(r.on_segment(t(131), &data(1651, 50)).ack.is_some());
    assert_eq!(r.delack_deadline, None);
}

#[test]
fn linux_duplicates_and_first_ce_marks_enter_quick_ack_mode() {
    let mut r = linux_established(&linux_cfg(400), 100);
    r.on_segment(t(1000), &data(1, 100));
    r.on_segment(t(1010), &data(101, 100));
    assert_eq!(r.on_segment(t(1020), &data(201, 100)).ack, None);
    // A duplicate: ACKed at once, 2 quick ACKs (one used by it), ato 40.
    assert!(r.on_segment(t(1030), &data(1, 100)).ack.is_some());
    assert_eq!((r.linux_ack().unwrap().quick, ato_ms(&r)), (1, 40));
    assert!(r.on_segment(t(1040), &data(301, 100)).ack.is_some());
    assert_eq!(r.on_segment(t(1050), &data(401, 100)).ack, None);
    // ECN: the first CE mark is ACKed at once, a second one not.
    let mut c = linux_cfg(400);
    c.ecn = true;
    let mut r = linux_established(&c, 100);
    r.open_established(); // (ECN on without the SYN's flags)
    r.on_segment(t(1000), &data(1, 100));
    r.on_segment(t(1010), &data(101, 100));
    let mut acks = vec![];
    r.on_segment_ce(t(1020), &data(201, 100), true, &mut acks);
    assert_eq!(acks.len(), 1);
    acks.clear();
    r.on_segment_ce(t(1025), &data(301, 100), true, &mut acks);
    assert_eq!(acks.len(), 1); // the second quick ACK of the two
    acks.clear();
    r.on_segment_ce(t(1030), &data(401, 100), true, &mut acks);
    assert!(acks.is_empty());
    // CWR on data is ACKed now (tcp_ecn_accept_cwr).
    let cwr = TcpHeader {
        flags: ACK | CWR,
        ..data(501, 100)
    };
    r.on_segment_ce(t(1031), &cwr, false, &mut acks);
    assert_eq!(acks.len(), 1);
}

#[test]
fn a_segment_over_several_held_ranges_reports_only_the_first_overlap() {
    // The expectations of Linux's tcp_dsack_mult.pkt, in 1000-B segments:
    // held 1001:3001, 4001:5001, 7001:8001; then 1:6001 arrives in order.
    let mut r = established_with(&dsack_cfg(true, false));
    for s in [1001, 2001, 4001, 7001] {
        r.on_segment(t(10), &data(s, 1000));
    }
    let a = r.on_segment(t(11), &data(1, 6000)).ack.unwrap();
    assert_eq!(
        (a.ack, a.sack_blocks()),
        (6001, &[(1001, 3001), (7001, 8001)][..])
    );
    let a = r.on_segment(t(12), &data(6001, 2000)).ack.unwrap();
    assert_eq!((a.ack, a.sack_blocks()), (8001, &[(7001, 8001)][..]));
    let a = r.on_segment(t(13), &data(1, 1000)).ack.unwrap();
    assert_eq!((a.ack, a.sack_blocks()), (8001, &[(1, 1001)][..]));
}

#[test]
fn an_unsent_dsack_block_is_dropped_when_the_next_segment_arrives() {
    let mut r = established_with(&dsack_cfg(true, false));
    r.on_segment(t(10), &data(1, 100));
    r.on_segment(t(11), &data(101, 100));
    // [151, 201) is old, and its ACK waits (one new segment's worth).
    assert_eq!(r.on_segment(t(12), &data(151, 100)).ack, None);
    // The next segment's ACK reports only its own duplicates: none.
    let a = r.on_segment(t(13), &data(251, 100)).ack.unwrap();
    assert_eq!((a.ack, a.nsack), (351, 0));
}

#[test]
fn with_an_application_that_closes_a_fin_waits_40_ms_in_ping_pong_mode() {
    // Linux's tcp_fin in ESTABLISHED enters ping-pong mode: no quick ACK,
    // the delayed ACK at the ATO (40 ms), unless this end's own segment
    // carries it first (tcp_event_ack_sent).
    let mut r = linux_established(&linux_cfg(1 << 20), 1);
    assert!(r.on_segment(t(10), &data(1, 100)).ack.is_some()); // quick ACK
    assert!(r.take_fin_pingpong(t(20), 101, false).is_none());
    assert_eq!((r.rcv_nxt, r.fin_received), (102, true));
    assert_eq!(r.delack_deadline, Some(t(60)));
    let a = r.on_delack_timer(t(60)).expect("the FIN's ACK");
    assert_eq!(a.ack, 102);
    // Carried by this end's own segment instead: no ACK left to send.
    let mut r = linux_established(&linux_cfg(1 << 20), 1);
    assert!(r.take_fin_pingpong(t(20), 1, false).is_none());
    r.ack_carried(2);
    assert_eq!(r.delack_deadline, None);
    assert!(r.on_delack_timer(t(60)).is_none());
    // The data's own ACK covers it: nothing more is due.
    let mut r = linux_established(&linux_cfg(1 << 20), 1);
    assert!(r.take_fin_pingpong(t(20), 1, true).is_none());
    assert_eq!(r.delack_deadline, None);
    // Out of order: not taken (the caller passes it on as any FIN).
    let mut r = linux_established(&linux_cfg(1 << 20), 1);
    assert!(r.take_fin_pingpong(t(20), 501, false).is_none());
    assert!(!r.fin_received);
    // Without ping-pong (the simulator's receiver), at once.
    let fin = TcpHeader {
        seq: 1,
        flags: ACK | FIN,
        ..TcpHeader::default()
    };
    let mut r = linux_established(&linux_cfg(1 << 20), 1);
    assert_eq!(r.on_segment(t(20), &fin).ack.map(|a| a.ack), Some(2));
}
