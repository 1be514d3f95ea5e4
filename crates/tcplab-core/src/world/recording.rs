// SPDX-License-Identifier: MIT OR Apache-2.0
//! What a run records beyond its counters, when asked: queue and TCP time
//! series, the drop and TCP event logs, and packet traces (pcap).

use super::*;

impl World {
    /// After a TCP endpoint acted, when something is recorded: its time
    /// series and its event log ([`Recording::record_tcp`], out of line, so
    /// that the packet path calls it as before with the world and the flow).
    #[inline(never)]
    pub(super) fn record_tcp(&mut self, flow: u32) {
        self.rec.record_tcp(&mut self.ep, flow, self.sim.now);
    }
}

impl Recording {
    /// Writes packet `id` to link direction `ld`'s packet trace, if it has
    /// one, as seen at `at` (`flows` name its source).
    #[inline(always)]
    pub(super) fn capture(
        &mut self,
        ld: u32,
        id: PacketId,
        at: SimTime,
        packets: &Slab<Packet>,
        flows: &[Flow],
    ) {
        if let Some(w) = &mut self.pcap[ld as usize] {
            let p = packets.get(id);
            let f = p.flow as usize;
            w.write(at, p, flows[f].src, &self.flow_opts[f]);
        }
    }

    /// A change of link direction `ld`'s queue at `at` (a discipline that
    /// holds its queue is brought up to date after the fact).
    #[inline(always)]
    pub(super) fn queue_at(&mut self, ld: u32, at: SimTime, len: usize) {
        if self.queue_trace.is_some() {
            self.push_queue_sample(ld, at, len);
        }
    }

    /// One sample of the queue series (out of the packet path of a run
    /// that records none).
    #[inline(never)]
    fn push_queue_sample(&mut self, ld: u32, at: SimTime, len: usize) {
        if let Some(tr) = &mut self.queue_trace {
            let (t, v) = &mut tr[ld as usize];
            alloc::push(t, at.as_nanos(), "the queue series");
            alloc::push(v, len as f64, "the queue series");
            self.series_samples += 1;
        }
    }

    /// A drop at `at`, in the drop log if one is kept.
    #[inline]
    pub(super) fn drop_at(&mut self, ld: u32, p: &Packet, cause: DropCause, at: SimTime) {
        if let Some(log) = &mut self.drop_log {
            alloc::push(log, (at, ld, p.flow, p.number, cause), "the drop log");
        }
    }

    /// Creates the trace files, before the first event.
    pub(super) fn open_pcap(
        &mut self,
        spec: &PcapSpec,
        net: &Network,
        ep: &Endpoints,
    ) -> Result<()> {
        let dir = Path::new(&spec.dir);
        std::fs::create_dir_all(dir)
            .map_err(|e| Error::Io(format!("pcap.dir '{}': {e}", spec.dir)))?;
        self.pcap_rx = spec.capture == CapturePoint::Rx;
        self.pcap = (0..net.links.len()).map(|_| None).collect();
        // Names stay distinct on case-insensitive file systems too: a name
        // equal to an earlier one but for case gets the link's index.
        let mut taken = std::collections::HashSet::new();
        let stems: Vec<String> = net
            .link_names
            .iter()
            .enumerate()
            .map(|(i, name)| {
                let stem = crate::pcap::file_stem(name);
                if taken.insert(stem.to_lowercase()) {
                    stem
                } else {
                    format!("{stem}~{i}")
                }
            })
            .collect();
        for (ld, l) in net.links.iter().enumerate() {
            let name = &net.link_names[l.link as usize];
            if spec.links.as_ref().is_some_and(|v| !v.contains(name)) {
                continue;
            }
            let file = &stems[l.link as usize];
            let path = dir.join(format!("{file}-{}.pcap", ld % 2));
            let w = PcapWriter::create(&path, spec.snaplen)
                .map_err(|e| Error::Io(format!("{}: {e}", path.display())))?;
            self.pcap[ld] = Some(w);
        }
        self.pcap_tx = !self.pcap_rx;
        self.flow_opts = ep
            .flows
            .iter()
            .map(|f| match f.app {
                App::Tcp(i) => {
                    let c = ep.tcps[i as usize].snd.config();
                    FlowOptions {
                        mss: c.mss.min(65_535) as u16,
                        wscale: c
                            .window_scaling
                            .then(|| crate::tcp::window_shift(c.rcv_buf, true)),
                        sack: c.sack,
                        timestamps: c.timestamps,
                    }
                }
                App::Cbr(_) => FlowOptions::default(),
            })
            .collect();
        Ok(())
    }

    /// After a TCP endpoint acted, when something is recorded: its time
    /// series and its event log.
    #[inline]
    fn record_tcp(&mut self, ep: &mut Endpoints, flow: u32, now: SimTime) {
        let App::Tcp(i) = ep.flows[flow as usize].app else {
            return;
        };
        let t = &mut ep.tcps[i as usize];
        if self.any_series && !t.series.is_empty() {
            let snd = &t.snd;
            let new_sample = snd.rtt().samples != t.rtt_samples;
            t.rtt_samples = snd.rtt().samples;
            for s in &mut t.series {
                let kind = match &s.of {
                    TraceSpec::Kind(k) => *k,
                    TraceSpec::Probe(name) => match snd.cc().probe(name) {
                        Some(v) => {
                            record_change(s, now, v, &mut self.series_samples);
                            continue;
                        }
                        None => continue,
                    },
                };
                let v = match kind {
                    TraceKind::Cwnd => snd.tcb().cwnd as f64,
                    TraceKind::Ssthresh => crate::results::bytes_or_unlimited(snd.tcb().ssthresh),
                    TraceKind::Srtt => snd.tcb().srtt.map_or(f64::NAN, |d| d.as_secs_f64()),
                    TraceKind::Rto => snd.rtt().rto().as_secs_f64(),
                    TraceKind::State => snd.tcb().ca_state.code(),
                    TraceKind::Inflight => snd.flight_size() as f64,
                    TraceKind::Bwe | TraceKind::Diff => {
                        match kind.probe().and_then(|p| snd.cc().probe(p)) {
                            Some(v) => v,
                            None => continue,
                        }
                    }
                    TraceKind::Rtt => {
                        if !new_sample {
                            continue;
                        }
                        // Every sample, repeated values included.
                        let v = snd.tcb().latest_rtt.map_or(f64::NAN, |d| d.as_secs_f64());
                        alloc::push(&mut s.times, now.as_nanos(), "a TCP series");
                        alloc::push(&mut s.values, v, "a TCP series");
                        self.series_samples += 1;
                        continue;
                    }
                    TraceKind::Queue
                    | TraceKind::Sojourn
                    | TraceKind::Drops
                    | TraceKind::Events => continue,
                };
                record_change(s, now, v, &mut self.series_samples);
            }
        }
        let Some(log) = &mut self.event_log else {
            return;
        };
        if let Some(ev) = t.snd.events_mut() {
            for e in ev.drain(..) {
                alloc::push(log, (flow, e), "the TCP event log");
            }
        }
    }
}

/// Appends `v` at `now` to a series recorded at each change, if it changed.
fn record_change(s: &mut TcpSeries, now: SimTime, v: f64, samples: &mut u64) {
    if s.values
        .last()
        .is_none_or(|&last| last.to_bits() != v.to_bits())
    {
        alloc::push(&mut s.times, now.as_nanos(), "a TCP series");
        alloc::push(&mut s.values, v, "a TCP series");
        *samples += 1;
    }
}
