// SPDX-License-Identifier: MIT OR Apache-2.0
//! The results of a run: per-flow and per-link records, logs, series,
//! intervals and the summary, taken out of the world when it is done.

use super::*;
use crate::results::HistogramRecord;

impl World {
    /// One flow's record, borrowing its names from the world.
    fn flow_row(&self, i: usize, end: SimTime) -> FlowResult<&str> {
        let f = &self.flows[i];
        let s = &f.stats;
        let (tcp, completion) = match f.app {
            App::Tcp(t) => {
                let t = &self.tcps[t as usize];
                (Some(t), t.completion)
            }
            App::Cbr(_) => (None, None),
        };
        let mut active_end = f.stop.map_or(end, |st| st.min(end));
        if let Some(c) = completion {
            active_end = c;
        }
        let active = if active_end > f.start {
            active_end - f.start
        } else {
            SimDuration::ZERO
        };
        let per_s = |bytes: u64| {
            if active.is_zero() {
                0.0
            } else {
                bytes as f64 * 8.0 / active.as_secs_f64()
            }
        };
        let empty: [Delays; 2] = Default::default();
        let [data, acks] = f.delays.as_deref().unwrap_or(&empty);
        let secs = |ns: f64| ns * 1e-9;
        // The means from the always-kept sums; the rest from the
        // distributions (UDP's always, TCP's with `delay_percentiles`).
        let mean_delay = |dir: usize| {
            let n = [s.fwd.arrived, s.rev.arrived][dir];
            if n == 0 {
                f64::NAN
            } else {
                s.delay_sum_ns[dir] as f64 / n as f64 * 1e-9
            }
        };
        let (rtt_samples, rtt_min_s, rtt_mean_s, rtt_max_s) = match tcp {
            Some(t) if t.snd.rtt().samples > 0 => {
                let r = t.snd.rtt();
                let min = t.snd.tcb().min_rtt.unwrap_or(r.max);
                (
                    r.samples,
                    min.as_secs_f64(),
                    r.sum_ns as f64 / r.samples as f64 * 1e-9,
                    r.max.as_secs_f64(),
                )
            }
            _ => (0, f64::NAN, f64::NAN, f64::NAN),
        };
        let (retx, retx_bytes, timeouts, frs, data_segs) = tcp.map_or((0, 0, 0, 0, 0), |t| {
            let st = t.snd.stats();
            (
                st.retransmitted_segments,
                st.retransmitted_bytes,
                st.timeouts,
                st.fast_retransmits,
                st.segments_sent,
            )
        });
        FlowResult {
            flow: &f.name,
            kind: f.kind.name(),
            src: &self.nodes[f.src as usize].name,
            dst: &self.nodes[f.dst as usize].name,
            start_s: f.start.as_secs_f64(),
            sent_packets: s.fwd.sent,
            sent_bytes: s.sent_bytes,
            delivered_packets: s.fwd.arrived,
            delivered_bytes: s.delivered_bytes,
            lost_queue: s.fwd.lost_queue,
            lost_error: s.fwd.lost_error,
            in_flight_packets: s.fwd.in_flight(),
            goodput_bps: per_s(s.delivered_bytes),
            delay_min_s: secs(data.hist.min()),
            delay_mean_s: mean_delay(0),
            delay_p50_s: secs(data.hist.quantile(0.5)),
            delay_p95_s: secs(data.hist.quantile(0.95)),
            delay_p99_s: secs(data.hist.quantile(0.99)),
            delay_max_s: secs(data.hist.max()),
            jitter_s: secs(data.jitter()),
            ack_delay_mean_s: mean_delay(1),
            ack_delay_p50_s: secs(acks.hist.quantile(0.5)),
            ack_delay_p95_s: secs(acks.hist.quantile(0.95)),
            ack_delay_p99_s: secs(acks.hist.quantile(0.99)),
            ack_delay_max_s: secs(acks.hist.max()),
            ack_jitter_s: secs(acks.jitter()),
            throughput_bps: if tcp.is_some() {
                per_s(s.sent_bytes)
            } else {
                f64::NAN
            },
            unique_sent_bps: if tcp.is_some() {
                per_s(s.sent_bytes - retx_bytes)
            } else {
                f64::NAN
            },
            retransmitted_segments: retx,
            retransmission_ratio: if data_segs == 0 {
                0.0
            } else {
                retx as f64 / data_segs as f64
            },
            timeouts: timeouts.into(),
            fast_retransmits: frs.into(),
            dupacks: tcp.map_or(0, |t| t.snd.stats().dupacks.into()),
            ecn_reductions: tcp.map_or(0, |t| t.snd.stats().ecn_reductions.into()),
            rtt_samples,
            rtt_min_s,
            rtt_mean_s,
            rtt_max_s,
            completion_time_s: completion.map_or(f64::NAN, |c| (c - f.start).as_secs_f64()),
            transfer_bytes: tcp.and_then(|t| t.transfer).unwrap_or(0),
            slowdown: match (completion, self.ideal[i]) {
                (Some(c), Some(ideal)) => (c - f.start).as_nanos() as f64 / ideal.as_nanos() as f64,
                _ => f64::NAN,
            },
            acked_bytes: tcp.map_or(0, |t| t.snd.bytes_acked()),
            ack_packets: s.rev.sent,
            acks_lost: s.rev.lost_queue + s.rev.lost_error,
            cc: tcp.map_or("", |t| &t.cc_name),
            recovery: tcp.map_or("", |t| t.snd.config().recovery.name()),
            mss: tcp.map_or(0, |t| t.snd.mss()),
        }
    }

    /// What a link row reads, apart from the flows: a link's rows can be
    /// built on a thread of their own while the flows' are built here.
    fn link_view(&self) -> LinkView<'_> {
        LinkView {
            links: &self.links,
            link_names: &self.link_names,
            nodes: &self.nodes,
            shapers: &self.shapers,
            delay_percentiles: self.delay_percentiles,
        }
    }
}

/// The parts of the world a link's record reads ([`World::link_view`]).
struct LinkView<'a> {
    links: &'a [LinkDir],
    link_names: &'a [String],
    nodes: &'a [Node],
    shapers: &'a [Shaper],
    delay_percentiles: bool,
}

impl<'a> LinkView<'a> {
    /// One link direction's record, borrowing its names from the world.
    fn link_row(&self, l: &'a LinkDir, end: SimTime) -> LinkResult<&'a str> {
        let end_ns = end.as_nanos();
        let s = &l.stats;
        let tail = (end.max(s.queue_changed_at) - s.queue_changed_at).as_nanos() as u128;
        let (waiting, waiting_bytes) = l.queue.waiting();
        let area = s.queue_area + waiting as u128 * tail;
        let bytes_area = s.queue_bytes_area + waiting_bytes as u128 * tail;
        let per_run = |a: u128| {
            if end_ns == 0 {
                0.0
            } else {
                a as f64 / end_ns as f64
            }
        };
        // The packets that went on the wire at once waited 0.
        let quantile = |q: f64| match &s.sojourn {
            Some(h) if self.delay_percentiles => {
                let mut h = (**h).clone();
                h.add_zeros(l.tx_packets.saturating_sub(h.count()));
                h.quantile(q) / 1e9
            }
            _ if self.delay_percentiles && l.tx_packets > 0 => 0.0,
            _ => f64::NAN,
        };
        let sent = |v: f64| if l.tx_packets == 0 { f64::NAN } else { v };
        let trace = self.trace_of(l);
        let arq = l.error.as_deref().and_then(|e| e.arq());
        let utilization = match trace {
            _ if end_ns == 0 => 0.0,
            // The bytes it sent of those its opportunities offered.
            Some(t) => {
                let offered = t.opportunities_until(end) * OPPORTUNITY_BYTES as u64;
                l.tx_bytes as f64 / offered.max(1) as f64
            }
            None => l.busy_ns as f64 / end_ns as f64,
        };
        LinkResult {
            link: &self.link_names[l.link as usize],
            src: &self.nodes[self.sender_of(l) as usize].name,
            dst: &self.nodes[l.to as usize].name,
            rate_bps: l.rate.bps(),
            delay_s: l.delay.as_secs_f64(),
            tx_packets: l.tx_packets,
            tx_bytes: l.tx_bytes,
            drops_queue: s.drops_queue,
            drops_aqm: s.drops_aqm,
            marks: s.marks,
            drops_error: s.drops_error,
            utilization,
            queue_max_packets: s.queue_max,
            queue_mean_packets: per_run(area),
            queue_mean_bytes: per_run(bytes_area),
            sojourn_mean_s: sent(s.sojourn_sum as f64 / l.tx_packets as f64 / 1e9),
            sojourn_p50_s: quantile(0.5),
            sojourn_p95_s: quantile(0.95),
            sojourn_p99_s: quantile(0.99),
            sojourn_max_s: sent(s.sojourn_max as f64 / 1e9),
            // The file's name: the same on every machine (the effective
            // scenario has the whole path).
            trace: trace.map_or("", |t| {
                std::path::Path::new(&t.file)
                    .file_name()
                    .and_then(|n| n.to_str())
                    .unwrap_or(&t.file)
            }),
            trace_period_s: trace.map_or(f64::NAN, |t| t.period_ms() as f64 / 1e3),
            drops_outage: self.shaper_of(l).map_or(0, |s| s.drops),
            arq_retries: arq.map_or(0, |a| a.retries),
            arq_residual: arq.map_or(0, |a| a.residual),
            arq_delay_mean_s: match arq {
                Some(a) if a.delivered > 0 => a.added_ns as f64 / a.delivered as f64 / 1e9,
                _ => f64::NAN,
            },
        }
    }

    /// The node link direction `l` leaves: where its reverse arrives.
    fn sender_of(&self, l: &LinkDir) -> u32 {
        let first = &self.links[2 * l.link as usize];
        let reverse = if std::ptr::eq(first, l) {
            &self.links[2 * l.link as usize + 1]
        } else {
            first
        };
        reverse.to
    }

    /// The shaper of link direction `l`, if it has one.
    fn shaper_of(&self, l: &LinkDir) -> Option<&'a Shaper> {
        self.shapers.get(l.shaper as usize)
    }

    /// The capacity trace driving link direction `l`, if any.
    fn trace_of(&self, l: &LinkDir) -> Option<&'a CapacityTrace> {
        match self.shaper_of(l).map(|s| &s.kind) {
            Some(ShaperKind::Trace(t)) => Some(&t.trace),
            _ => None,
        }
    }
}

impl World {
    /// The results with every table as columns. The flows and links tables
    /// are built straight from the world a chunk of rows at a time, without
    /// an owned record per row (with a million flows those records and
    /// their names cost seconds); the returned [`Results`] has no flow or
    /// link rows. The tables are those of `into_results().tables()`.
    pub fn into_tables(self) -> (Tables, Results) {
        let large = self.flows.len() + self.links.len() >= LARGE;
        self.into_tables_on(large)
    }

    /// As `into_tables`, with the links table built on a second thread
    /// when `two_threads`.
    pub(super) fn into_tables_on(self, two_threads: bool) -> (Tables, Results) {
        let end = self.end();
        let ids: Vec<usize> = (0..self.flows.len()).collect();
        let flow_table = || {
            chunked(&ids, |ids| {
                flow_columns(
                    &ids.iter()
                        .map(|&i| self.flow_row(i, end))
                        .collect::<Vec<_>>(),
                )
            })
        };
        let view = self.link_view();
        let link_rows = |l: &[LinkDir]| {
            link_columns(&l.iter().map(|l| view.link_row(l, end)).collect::<Vec<_>>())
        };
        // Mostly first touches of fresh columns: a large run's tables are
        // built on two threads, the first links on a second one while this
        // one builds the flows and then the last links. A flow's row costs
        // about two link rows (0.44 and 0.2 us at a million flows).
        let (links, flows) = if two_threads {
            let n = view.links.len();
            let at = ((n + 2 * ids.len()) / 2).min(n);
            chunked_beside(view.links, at, link_rows, flow_table)
        } else {
            (chunked(view.links, link_rows), flow_table())
        };
        let r = self.results(false);
        let mut tables = r.tables();
        tables[0].1 = flows;
        tables[1].1 = links;
        (tables, r)
    }

    fn end(&self) -> SimTime {
        self.finished_at.unwrap_or(self.now)
    }

    /// The counters of the run, as plain records; the recorded series move
    /// into them (not copied: with every series recorded they are most of
    /// the run's memory).
    pub fn into_results(self) -> Results {
        self.results(true)
    }

    /// The results; with `rows` false, without the flow and link records.
    fn results(mut self, rows: bool) -> Results {
        let end = self.end();
        let (mut flows, mut links) = (Vec::new(), Vec::new());
        if rows {
            flows = (0..self.flows.len())
                .map(|i| owned_flow(self.flow_row(i, end)))
                .collect();
            let view = self.link_view();
            links = view
                .links
                .iter()
                .map(|l| owned_link(view.link_row(l, end)))
                .collect();
        }
        let (dirs, nodes, link_names) = (&self.links, &self.nodes, &self.link_names);
        let dir_name = |ld: usize| {
            let l = &dirs[ld];
            (
                link_names[l.link as usize].clone(),
                // The sending node: where the reverse direction arrives.
                nodes[dirs[ld ^ 1].to as usize].name.clone(),
                nodes[l.to as usize].name.clone(),
            )
        };
        // In time order: a discipline that holds its queue records its
        // drops when its link is next brought up to date.
        let mut log: Vec<DropEntry> = self.drop_log.iter().flatten().copied().collect();
        log.sort_by_key(|e| e.0);
        let drops = log
            .iter()
            .map(|&(t, ld, flow, packet, cause)| {
                let (link, src, dst) = dir_name(ld as usize);
                DropRecord {
                    time_ns: t.as_nanos(),
                    link,
                    src,
                    dst,
                    flow: self.flows[flow as usize].name.clone(),
                    packet,
                    cause,
                }
            })
            .collect();
        let mut series = Vec::new();
        for (name, trace) in [
            ("queue", &mut self.queue_trace),
            ("sojourn", &mut self.sojourn_trace),
        ] {
            for (ld, (t, v)) in trace.iter_mut().flatten().enumerate() {
                let (link, src, dst) = dir_name(ld);
                series.push(Series {
                    name: name.into(),
                    target: format!("{link}:{src}>{dst}"),
                    times_ns: std::mem::take(t),
                    values: std::mem::take(v),
                });
            }
        }
        let events = self
            .event_log
            .iter()
            .flatten()
            .map(|&(flow, e)| EventRecord {
                time_ns: e.time.as_nanos(),
                flow: self.flows[flow as usize].name.clone(),
                event: e.kind.name().to_string(),
                seq: e.seq,
                cwnd: e.cwnd,
                ssthresh: crate::results::bytes_or_unlimited(e.ssthresh),
            })
            .collect();
        for f in &mut self.flows {
            if let App::Tcp(t) = f.app {
                let t = &mut self.tcps[t as usize];
                for s in &mut t.series {
                    series.push(Series {
                        name: s.of.name(),
                        target: f.name.clone(),
                        times_ns: std::mem::take(&mut s.times),
                        values: std::mem::take(&mut s.values),
                    });
                }
            }
        }
        let mut intervals = Vec::new();
        if let Some(iv) = self.scenario.interval {
            let n = end.as_nanos().div_ceil(iv.as_nanos()) as usize;
            for f in &self.flows {
                for k in 0..n {
                    let start = SimTime::from_nanos(k as u64 * iv.as_nanos());
                    let stop = (start + iv).min(end);
                    let bytes = f.per_interval.get(k).copied().unwrap_or(0);
                    let span = (stop - start).as_secs_f64();
                    intervals.push(IntervalRecord {
                        flow: f.name.clone(),
                        start_s: start.as_secs_f64(),
                        end_s: stop.as_secs_f64(),
                        delivered_bytes: bytes,
                        goodput_bps: if span > 0.0 {
                            bytes as f64 * 8.0 / span
                        } else {
                            0.0
                        },
                    });
                }
            }
        }
        // The delay distributions bin by bin, when asked for.
        let mut histograms = Vec::new();
        if self.delay_percentiles {
            for f in &self.flows {
                let Some(d) = f.delays.as_deref() else {
                    continue;
                };
                for (direction, delays) in ["data", "ack"].into_iter().zip(d.iter()) {
                    for (low, width, count) in delays.hist.buckets() {
                        histograms.push(HistogramRecord {
                            flow: f.name.clone(),
                            direction: direction.to_string(),
                            lower_s: low as f64 * 1e-9,
                            upper_s: (low + width) as f64 * 1e-9,
                            count,
                        });
                    }
                }
            }
        }
        let pcap = self
            .pcap
            .iter()
            .enumerate()
            .filter_map(|(ld, w)| {
                let w = w.as_ref()?;
                let (link, src, dst) = dir_name(ld);
                Some(PcapRecord {
                    path: w.path().display().to_string(),
                    link,
                    src,
                    dst,
                    packets: w.records,
                    error: w.error.clone(),
                })
            })
            .collect();
        let results = Results {
            flows,
            links,
            drops,
            events,
            intervals,
            histograms,
            pcap,
            series,
            summary: RunSummary {
                sim_seconds: end.as_secs_f64(),
                events: self.events,
                peak_packets: self.packets.capacity_used() as u64,
            },
            timing: RunTiming {
                wall_seconds: self.wall_seconds,
                events_per_second: if self.wall_seconds > 0.0 {
                    self.events as f64 / self.wall_seconds
                } else {
                    0.0
                },
                check_seconds: 0.0,
                build_seconds: 0.0,
                results_seconds: 0.0,
            },
            scenario: std::mem::take(&mut self.scenario),
        };
        self.dispose();
        results
    }
}

fn owned_flow(r: FlowResult<&str>) -> FlowResult {
    FlowResult {
        flow: r.flow.to_owned(),
        kind: r.kind.to_owned(),
        src: r.src.to_owned(),
        dst: r.dst.to_owned(),
        start_s: r.start_s,
        sent_packets: r.sent_packets,
        sent_bytes: r.sent_bytes,
        delivered_packets: r.delivered_packets,
        delivered_bytes: r.delivered_bytes,
        lost_queue: r.lost_queue,
        lost_error: r.lost_error,
        in_flight_packets: r.in_flight_packets,
        goodput_bps: r.goodput_bps,
        delay_min_s: r.delay_min_s,
        delay_mean_s: r.delay_mean_s,
        delay_p50_s: r.delay_p50_s,
        delay_p95_s: r.delay_p95_s,
        delay_p99_s: r.delay_p99_s,
        delay_max_s: r.delay_max_s,
        jitter_s: r.jitter_s,
        ack_delay_mean_s: r.ack_delay_mean_s,
        ack_delay_p50_s: r.ack_delay_p50_s,
        ack_delay_p95_s: r.ack_delay_p95_s,
        ack_delay_p99_s: r.ack_delay_p99_s,
        ack_delay_max_s: r.ack_delay_max_s,
        ack_jitter_s: r.ack_jitter_s,
        throughput_bps: r.throughput_bps,
        unique_sent_bps: r.unique_sent_bps,
        retransmitted_segments: r.retransmitted_segments,
        retransmission_ratio: r.retransmission_ratio,
        timeouts: r.timeouts,
        fast_retransmits: r.fast_retransmits,
        dupacks: r.dupacks,
        ecn_reductions: r.ecn_reductions,
        rtt_samples: r.rtt_samples,
        rtt_min_s: r.rtt_min_s,
        rtt_mean_s: r.rtt_mean_s,
        rtt_max_s: r.rtt_max_s,
        completion_time_s: r.completion_time_s,
        transfer_bytes: r.transfer_bytes,
        slowdown: r.slowdown,
        acked_bytes: r.acked_bytes,
        ack_packets: r.ack_packets,
        acks_lost: r.acks_lost,
        cc: r.cc.to_owned(),
        recovery: r.recovery.to_owned(),
        mss: r.mss,
    }
}

fn owned_link(r: LinkResult<&str>) -> LinkResult {
    LinkResult {
        link: r.link.to_owned(),
        src: r.src.to_owned(),
        dst: r.dst.to_owned(),
        rate_bps: r.rate_bps,
        delay_s: r.delay_s,
        tx_packets: r.tx_packets,
        tx_bytes: r.tx_bytes,
        drops_queue: r.drops_queue,
        drops_aqm: r.drops_aqm,
        marks: r.marks,
        drops_error: r.drops_error,
        utilization: r.utilization,
        queue_max_packets: r.queue_max_packets,
        queue_mean_packets: r.queue_mean_packets,
        queue_mean_bytes: r.queue_mean_bytes,
        sojourn_mean_s: r.sojourn_mean_s,
        sojourn_p50_s: r.sojourn_p50_s,
        sojourn_p95_s: r.sojourn_p95_s,
        sojourn_p99_s: r.sojourn_p99_s,
        sojourn_max_s: r.sojourn_max_s,
        trace: r.trace.to_owned(),
        trace_period_s: r.trace_period_s,
        drops_outage: r.drops_outage,
        arq_retries: r.arq_retries,
        arq_residual: r.arq_residual,
        arq_delay_mean_s: r.arq_delay_mean_s,
    }
}

/// Adds `bytes` to the bucket of the interval containing `now`; returns how
/// many buckets it added.
pub(super) fn add_interval(
    buckets: &mut Vec<u64>,
    now: SimTime,
    interval: SimDuration,
    bytes: u64,
) -> u64 {
    let k = (now.as_nanos() / interval.as_nanos()) as usize;
    let mut added = 0;
    if buckets.len() <= k {
        added = (k + 1 - buckets.len()) as u64;
        alloc::reserve(buckets, k + 1 - buckets.len(), "per-interval counters");
        buckets.resize(k + 1, 0);
    }
    buckets[k] += bytes;
    added
}
