// SPDX-License-Identifier: MIT OR Apache-2.0
//! The results of a run: per-flow and per-link records, logs, series,
//! intervals and the summary, taken out of the world when it is done.

use super::flow_table::FlowRow;
use super::*;
use crate::results::HistogramRecord;

impl World {
    /// The results with every table as columns. The flows and links tables
    /// are built straight from the world a chunk of rows at a time, without
    /// an owned record per row (with a million flows those records and
    /// their names cost seconds); the returned [`Results`] has no flow or
    /// link rows. The tables are those of `into_results().tables()`.
    pub fn into_tables(self) -> (Tables, Results) {
        let large = self.ep.flows.len() + self.net.links.len() >= LARGE;
        self.into_tables_on(large)
    }

    /// As `into_tables`, with the links table built on a second thread
    /// when `two_threads`.
    pub(super) fn into_tables_on(self, two_threads: bool) -> (Tables, Results) {
        let end = self.end();
        let ids: Vec<usize> = (0..self.ep.flows.len()).collect();
        let flow_table = || {
            chunked(&ids, |ids| {
                flow_columns(
                    &ids.iter()
                        .map(|&i| FlowResult::of(&FlowRow::new(&self, i, end)))
                        .collect::<Vec<_>>(),
                )
            })
        };
        let view = self.net.view(self.sim.delay_percentiles);
        let link_rows = |l: &[LinkDir]| {
            link_columns(
                &l.iter()
                    .map(|l| LinkResult::of(&view.row(l, end)))
                    .collect::<Vec<_>>(),
            )
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
        self.finished_at.unwrap_or(self.sim.now)
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
            flows = (0..self.ep.flows.len())
                .map(|i| FlowResult::of(&FlowRow::new(&self, i, end)).to_owned_names())
                .collect();
            let view = self.net.view(self.sim.delay_percentiles);
            links = view
                .links
                .iter()
                .map(|l| LinkResult::of(&view.row(l, end)).to_owned_names())
                .collect();
        }
        let (dirs, nodes, link_names) = (&self.net.links, &self.net.nodes, &self.net.link_names);
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
        let mut log: Vec<DropEntry> = self.rec.drop_log.iter().flatten().copied().collect();
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
                    flow: self.ep.flows[flow as usize].name.clone(),
                    packet,
                    cause,
                }
            })
            .collect();
        let mut series = Vec::new();
        for (name, trace) in [
            ("queue", &mut self.rec.queue_trace),
            ("sojourn", &mut self.rec.sojourn_trace),
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
        let events = self.event_records();
        let intervals = self.interval_records(end);
        let histograms = self.histogram_records();
        let pcap = self
            .rec
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
        self.take_tcp_series(&mut series);
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
                peak_packets: self.sim.packets.capacity_used() as u64,
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

    /// The TCP event log as records.
    fn event_records(&self) -> Vec<EventRecord> {
        self.rec
            .event_log
            .iter()
            .flatten()
            .map(|&(flow, e)| EventRecord {
                time_ns: e.time.as_nanos(),
                flow: self.ep.flows[flow as usize].name.clone(),
                event: e.kind.name().to_string(),
                seq: e.seq,
                cwnd: e.cwnd,
                ssthresh: crate::results::bytes_or_unlimited(e.ssthresh),
            })
            .collect()
    }

    /// The TCP connections' series, moved into `series`.
    fn take_tcp_series(&mut self, series: &mut Vec<Series>) {
        for f in &mut self.ep.flows {
            if let App::Tcp(t) = f.app {
                let t = &mut self.ep.tcps[t as usize];
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
    }

    /// Per flow and interval, the bytes delivered (when `interval` is set).
    fn interval_records(&self, end: SimTime) -> Vec<IntervalRecord> {
        let mut intervals = Vec::new();
        if let Some(iv) = self.scenario.interval {
            let n = end.as_nanos().div_ceil(iv.as_nanos()) as usize;
            for f in &self.ep.flows {
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
        intervals
    }

    /// The delay distributions bin by bin, when asked for.
    fn histogram_records(&self) -> Vec<HistogramRecord> {
        let mut histograms = Vec::new();
        if self.sim.delay_percentiles {
            for f in &self.ep.flows {
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
        histograms
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
