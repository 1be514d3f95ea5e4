// SPDX-License-Identifier: MIT OR Apache-2.0
//! The tail of a connection as Linux's write queue shapes it: the FIN,
//! alone after the data, is the last segment the loss probe sends again
//! (`tcp_send_loss_probe` resends the tail skb); a record's end (MSG_EOR)
//! bounds every retransmission as it bounds an skb.

use super::*;

#[test]
fn the_loss_probe_after_a_lone_fin_sends_the_fin_again() {
    let mut f = Fix::rack_tlp_ten();
    f.advance(RTT);
    f.ack(seg(10)); // all data acknowledged
    let now = f.now;
    f.s.close(now, &mut f.out);
    let fin: Vec<_> = f
        .out
        .drain(..)
        .filter(|h| h.has(FIN))
        .map(|h| h.seq)
        .collect();
    assert_eq!(fin, vec![seg(10)]);
    // One segment (the FIN) in flight: PTO = 2 SRTT + the worst-case
    // delayed ACK, after the RTO here, so the probe takes the RTO's time.
    let rto = f.s.rto_deadline().expect("a timer runs for the FIN");
    f.timeout();
    assert_eq!(f.now, rto);
    let again: Vec<_> = f
        .out
        .drain(..)
        .map(|h| (h.seq, h.len, h.has(FIN)))
        .collect();
    assert_eq!(again, vec![(seg(10), 0, true)]);
    let events = f.events();
    assert!(events.contains(&TcpEventKind::LossProbe));
    assert!(
        !events.contains(&TcpEventKind::Timeout),
        "a probe, not a timeout"
    );
}

#[test]
fn the_loss_probe_with_data_and_a_fin_outstanding_sends_the_fin() {
    let mut f = Fix::rack_tlp_ten();
    let now = f.now;
    f.s.close(now, &mut f.out);
    f.out.clear();
    f.advance(RTT);
    f.ack(seg(9)); // 0..=8 arrived; 9 and the FIN outstanding
    f.timeout();
    let probe: Vec<_> = f
        .out
        .drain(..)
        .map(|h| (h.seq, h.len, h.has(FIN)))
        .collect();
    assert_eq!(
        probe,
        vec![(seg(10), 0, true)],
        "the tail is the FIN, not segment 9"
    );
}

#[test]
fn a_retransmission_stops_at_the_end_of_a_record() {
    // Ten segments in flight, all lost; a record ends 400 bytes into
    // segment 3. Going back N after the timeout resends 0..=2 whole, then
    // 400 bytes up to the record's end, then whole segments from there
    // (the next skb starts at the record's end).
    let mut f = Fix::ten_in_flight();
    let end = seg(3) + 400;
    f.s.mark_record_end(end);
    f.timeout();
    let sent = f.resend_after_timeout(5);
    let want = [
        (seg(0), MSS),
        (seg(1), MSS),
        (seg(2), MSS),
        (seg(3), 400),
        (end, MSS),
    ];
    assert_eq!(&sent[..5], &want);
}

#[test]
fn without_a_record_end_the_retransmission_is_a_whole_segment() {
    let mut f = Fix::ten_in_flight();
    f.timeout();
    let sent = f.resend_after_timeout(4);
    assert_eq!(sent[3], (seg(3), MSS));
}
