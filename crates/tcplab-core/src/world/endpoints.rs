// SPDX-License-Identifier: MIT OR Apache-2.0
//! The endpoints: deliveries to UDP sinks and TCP endpoints, the segments
//! TCP endpoints send, and the applications (CBR sources, TCP's bulk,
//! transfer and ON-OFF sources).

use super::*;

impl World {
    /// Hands packet `id` to its destination endpoint ([`Endpoints::deliver`])
    /// and sends what a TCP endpoint answers.
    pub(super) fn deliver(&mut self, id: PacketId) {
        let interval = self.scenario.interval;
        let Some((flow, to_receiver)) = self.ep.deliver(id, &mut self.sim, interval) else {
            return;
        };
        let mut out = std::mem::take(&mut self.ep.scratch);
        self.emit_tcp(flow, !to_receiver, &mut out);
        self.ep.scratch = out;
        if to_receiver {
            // The sender's state, which the series and the event
            // log record, is as it was: only the timers may move.
            self.ep.sync_timers(&mut self.sim.queue, flow);
        } else {
            self.after_tcp(flow);
        }
    }

    /// Sends the segments an endpoint produced: from the sender (src) when
    /// `from_sender`, else from the receiver (dst).
    #[inline(always)]
    pub(super) fn emit_tcp(&mut self, flow: u32, from_sender: bool, out: &mut Vec<TcpHeader>) {
        // Read in place and cleared after: a header is 112 bytes, and
        // `drain` would copy each out before it is copied into the packet.
        for h in out.iter() {
            let (egress, id) = self.ep.segment(flow, from_sender, h, &mut self.sim);
            self.send_on(egress, id);
        }
        out.clear();
    }

    /// After a TCP endpoint acted: sync its timers, record its series.
    #[inline(always)]
    pub(super) fn after_tcp(&mut self, flow: u32) {
        self.ep.sync_timers(&mut self.sim.queue, flow);
        if self.rec.any_series || self.rec.event_log.is_some() {
            self.record_tcp(flow);
        }
    }

    /// An application event of `flow` ([`Endpoints::app`]): sends what it
    /// produced.
    pub(super) fn app(&mut self, flow: u32) {
        match self.ep.app(flow, &mut self.sim) {
            Produced::Nothing => {}
            Produced::Datagram(src, pkt) => self.send_from(src, pkt),
            Produced::Segments(mut out) => {
                self.emit_tcp(flow, true, &mut out);
                self.ep.scratch = out;
                self.after_tcp(flow);
            }
        }
    }
}

/// What an application event produced, for the world to send.
pub(super) enum Produced {
    Nothing,
    /// A CBR source's datagram, from its node.
    Datagram(u32, Packet),
    /// A TCP sender's segments (the endpoints' scratch buffer, to give back).
    Segments(Vec<TcpHeader>),
}

impl Endpoints {
    /// Hands packet `id` to its destination endpoint and frees it. The
    /// packet is read in place: copying it out of the slab first costs more
    /// than the rest of a delivery when the slab is out of cache. For a TCP
    /// endpoint: (flow, whether it reached the receiver); the segments it
    /// answers with are left in the scratch buffer.
    #[inline(always)]
    pub(super) fn deliver(
        &mut self,
        id: PacketId,
        sim: &mut Sim,
        interval: Option<SimDuration>,
    ) -> Option<(u32, bool)> {
        let now = sim.now;
        let p = sim.packets.get(id);
        let flow = p.flow;
        let f = &mut self.flows[flow as usize];
        let to_receiver = p.src == f.src;
        f.dir_stats(p.src).arrived += 1;
        let delay = (now - p.sent_at).as_nanos();
        f.stats.delay_sum_ns[!to_receiver as usize] += delay;
        if sim.delay_percentiles || matches!(f.app, App::Cbr(_)) {
            record_delay(f, !to_receiver as usize, delay);
        }
        match &mut f.app {
            App::Cbr(_) => {
                if let Some(iv) = interval {
                    self.interval_buckets +=
                        add_interval(&mut f.per_interval, now, iv, p.payload as u64);
                }
                f.stats.delivered_bytes += p.payload as u64;
                sim.packets.free(id);
                None
            }
            App::Tcp(i) => {
                let t = &mut self.tcps[*i as usize];
                let out = &mut self.scratch;
                if to_receiver {
                    let ce = p.ecn == crate::net::packet::Ecn::Ce;
                    let delivered = t.rcv.on_segment_ce(now, &p.tcp, ce, out);
                    sim.packets.free(id);
                    if delivered > 0 {
                        f.stats.delivered_bytes += delivered;
                        if let Some(iv) = interval {
                            self.interval_buckets +=
                                add_interval(&mut f.per_interval, now, iv, delivered);
                        }
                        if t.transfer.is_some_and(|n| t.rcv.delivered >= n)
                            && t.completion.is_none()
                        {
                            t.completion = Some(now);
                        }
                    }
                } else {
                    t.snd.on_segment(now, &p.tcp, out);
                    sim.packets.free(id);
                }
                Some((flow, to_receiver))
            }
        }
    }

    /// Puts segment `h` of `flow` into a packet, counted as sent: from the
    /// sender (src) when `from_sender`, else from the receiver (dst). The
    /// link direction it leaves on, and the packet.
    #[inline(always)]
    pub(super) fn segment(
        &mut self,
        flow: u32,
        from_sender: bool,
        h: &TcpHeader,
        sim: &mut Sim,
    ) -> (u32, PacketId) {
        let now = sim.now;
        let f = &mut self.flows[flow as usize];
        let (src, dst, number, egress) = if from_sender {
            f.stats.fwd.sent += 1;
            f.stats.sent_bytes += h.len as u64;
            (f.src, f.dst, f.stats.fwd.sent, f.egress[0])
        } else {
            f.stats.rev.sent += 1;
            (f.dst, f.src, f.stats.rev.sent, f.egress[1])
        };
        let id = sim.packets.insert_with(|| Packet {
            flow,
            src,
            dst,
            size: IPV4_HEADER + TCP_HEADER + h.opt_len as u32 + h.len,
            payload: h.len,
            next_hop: NO_ROUTE,
            number,
            sent_at: now,
            proto: Proto::Tcp,
            ecn: if h.ect {
                crate::net::packet::Ecn::Ect0
            } else {
                crate::net::packet::Ecn::NotEct
            },
            tcp: *h,
        });
        (egress, id)
    }

    /// An application event of `flow`: a CBR source's next datagram, or a
    /// TCP sender's opening and data edges (ON-OFF, stop); schedules the
    /// next event.
    #[inline(always)]
    pub(super) fn app(&mut self, flow: u32, sim: &mut Sim) -> Produced {
        let now = sim.now;
        let f = &mut self.flows[flow as usize];
        let (src, dst) = (f.src, f.dst);
        match &mut f.app {
            App::Cbr(c) => {
                if f.stop.is_some_and(|s| now >= s) {
                    return Produced::Nothing;
                }
                if c.count.is_some_and(|n| c.sent >= n) {
                    return Produced::Nothing;
                }
                c.sent += 1;
                f.stats.fwd.sent += 1;
                let pkt = Packet {
                    flow,
                    src,
                    dst,
                    size: c.payload + IPV4_HEADER + UDP_HEADER,
                    payload: c.payload,
                    next_hop: NO_ROUTE,
                    number: f.stats.fwd.sent,
                    sent_at: now,
                    proto: Proto::Udp,
                    ecn: crate::net::packet::Ecn::NotEct,
                    tcp: TcpHeader::default(),
                };
                let more = c.count.is_none_or(|n| c.sent < n);
                let next = now + c.interval;
                f.stats.sent_bytes += c.payload as u64;
                if more && f.stop.is_none_or(|s| next < s) {
                    sim.queue.push(next, Event::App { flow });
                }
                Produced::Datagram(src, pkt)
            }
            App::Tcp(i) => {
                let t = &mut self.tcps[*i as usize];
                let mut out = std::mem::take(&mut self.scratch);
                if !t.opened {
                    t.opened = true;
                    if let Some(n) = t.transfer {
                        t.snd.set_app_limit(now, n, &mut out);
                        t.snd.close(now, &mut out);
                    }
                    if t.handshake {
                        t.snd.open(now, &mut out);
                    } else {
                        t.snd.open_established(now, &mut out);
                    }
                }
                while t.next_edge < t.edges.len() && t.edges[t.next_edge].0 <= now {
                    let on = t.edges[t.next_edge].1;
                    t.next_edge += 1;
                    if t.transfer.is_some() {
                        continue; // a transfer's data is fixed; a stop does not cut it
                    }
                    if on {
                        t.snd.set_app_limit(now, u64::MAX, &mut out);
                    } else {
                        t.snd.pause_app();
                    }
                }
                if let Some(&(at, _)) = t.edges.get(t.next_edge) {
                    sim.queue.push(at, Event::App { flow });
                }
                Produced::Segments(out)
            }
        }
    }

    /// The counters of the direction `p` travels in.
    #[inline]
    pub(super) fn dir_stats(&mut self, p: &Packet) -> &mut DirStats {
        self.flows[p.flow as usize].dir_stats(p.src)
    }
}

/// Counts a one-way delay in direction `dir` (0: src -> dst) of flow `f`'s
/// distribution, made at its first delivery.
#[cold]
#[inline(never)]
fn record_delay(f: &mut Flow, dir: usize, delay: u64) {
    f.delays.get_or_insert_with(Default::default)[dir].record(delay);
}
