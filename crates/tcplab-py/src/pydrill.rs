// SPDX-License-Identifier: MIT OR Apache-2.0
//! `tcplab._core.Drill`: one connection driven segment by segment, for the
//! packetdrill runner (`tcplab.packetdrill.run`). Segments cross as plain
//! tuples; the runner in Python does the script's semantics.

use std::panic::{catch_unwind, AssertUnwindSafe};

use pyo3::prelude::*;
use tcplab_core::drill::{Drill, Half};
use tcplab_core::scenario::FlowSpec;
use tcplab_core::tcp::{TcpHeader, MAX_SACK_BLOCKS};
use tcplab_core::time::SimTime;
use tcplab_core::Error;

/// A segment as Python passes it: seq, ack, flags, payload length, window
/// field, TS val, TS ecr, SACK blocks.
type Seg = (u64, u64, u8, u32, u16, u64, u64, Vec<(u64, u64)>);

/// A segment as Python gets it back: time (ns), half ("sender" or
/// "receiver"), seq, ack, flags, length, window, TS val, TS ecr, SACK
/// blocks, whether a retransmission, whether ECT.
type Sent = (
    u64,
    &'static str,
    u64,
    u64,
    u8,
    u32,
    u16,
    u64,
    u64,
    Vec<(u64, u64)>,
    bool,
    bool,
);

fn header(s: &Seg) -> TcpHeader {
    let mut h = TcpHeader {
        seq: s.0,
        ack: s.1,
        flags: s.2,
        len: s.3,
        wnd: s.4,
        ts_val: s.5,
        ts_ecr: s.6,
        ..TcpHeader::default()
    };
    let n = s.7.len().min(MAX_SACK_BLOCKS);
    h.sack[..n].copy_from_slice(&s.7[..n]);
    h.nsack = n as u8;
    h
}

fn spec(json: &str) -> Result<FlowSpec, Error> {
    serde_json::from_str(json).map_err(|e| Error::invalid("packetdrill.flow", e.to_string()))
}

/// Runs `f`, a panic becoming `tcplab.errors.InternalError`.
fn caught<T>(py: Python<'_>, f: impl FnOnce() -> Result<T, Error>) -> PyResult<T> {
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(Ok(v)) => Ok(v),
        Ok(Err(e)) => Err(crate::raise(py, e)),
        Err(p) => Err(crate::raise(
            py,
            Error::Internal(format!("the core panicked: {}", crate::panic_text(p))),
        )),
    }
}

#[pyclass(name = "Drill", module = "tcplab", unsendable)]
pub struct PyDrill {
    d: Drill,
}

#[pymethods]
impl PyDrill {
    #[new]
    fn new() -> Self {
        PyDrill { d: Drill::new() }
    }

    /// Checks a flow (JSON of a tcp flow entry) as a scenario would.
    #[staticmethod]
    fn check(py: Python<'_>, flow: &str, path_mtu: u32) -> PyResult<()> {
        caught(py, || Drill::check(&spec(flow)?, path_mtu))
    }

    #[allow(clippy::too_many_arguments)]
    fn passive_open(
        &mut self,
        py: Python<'_>,
        now: u64,
        flow: &str,
        path_mtu: u32,
        peer_shift: u8,
        syn: Seg,
        ce: bool,
    ) -> PyResult<()> {
        let d = &mut self.d;
        caught(py, || {
            let f = spec(flow)?;
            d.passive_open(
                SimTime::from_nanos(now),
                &f,
                path_mtu,
                peer_shift,
                &header(&syn),
                ce,
            )
        })
    }

    #[allow(clippy::too_many_arguments)]
    fn active_open(
        &mut self,
        py: Python<'_>,
        now: u64,
        syn_at: u64,
        flow: &str,
        path_mtu: u32,
        peer_shift: u8,
        syn_ack: Seg,
    ) -> PyResult<()> {
        let d = &mut self.d;
        caught(py, || {
            let f = spec(flow)?;
            d.active_open(
                SimTime::from_nanos(now),
                SimTime::from_nanos(syn_at),
                &f,
                path_mtu,
                peer_shift,
                &header(&syn_ack),
            )
        })
    }

    fn inject(&mut self, py: Python<'_>, now: u64, seg: Seg, ce: bool) -> PyResult<()> {
        let d = &mut self.d;
        caught(py, || {
            d.inject(SimTime::from_nanos(now), &header(&seg), ce);
            Ok(())
        })
    }

    #[pyo3(signature = (now, bytes, eor=false, more=false))]
    fn write(
        &mut self,
        py: Python<'_>,
        now: u64,
        bytes: u64,
        eor: bool,
        more: bool,
    ) -> PyResult<()> {
        let d = &mut self.d;
        caught(py, || {
            d.write(SimTime::from_nanos(now), bytes, eor, more);
            Ok(())
        })
    }

    fn close(&mut self, py: Python<'_>, now: u64) -> PyResult<()> {
        let d = &mut self.d;
        caught(py, || {
            d.close(SimTime::from_nanos(now));
            Ok(())
        })
    }

    /// The fq qdisc: Linux's pacing (ratios in percent, tcp_min_tso_segs).
    fn set_fq(&mut self, ss_ratio: u32, ca_ratio: u32, min_tso_segs: u32) {
        self.d.set_fq(ss_ratio, ca_ratio, min_tso_segs);
    }

    /// A local qdisc that drops every packet, on or off.
    fn set_local_drop(&mut self, now: u64, on: bool) {
        self.d.set_local_drop(SimTime::from_nanos(now), on);
    }

    /// Bytes written and not yet sent.
    fn unsent(&self) -> u64 {
        self.d.unsent()
    }

    /// TCP_NODELAY on or off.
    fn set_nodelay(&mut self, now: u64, on: bool) {
        self.d.set_nodelay(SimTime::from_nanos(now), on);
    }

    /// TCP_CORK on or off.
    fn set_cork(&mut self, now: u64, on: bool) {
        self.d.set_cork(SimTime::from_nanos(now), on);
    }

    /// The connection is gone; with `send_rst` a RST|ACK leaves.
    fn reset(&mut self, now: u64, send_rst: bool) {
        self.d.reset(SimTime::from_nanos(now), send_rst);
    }

    /// The earliest armed timer (ns), or None.
    /// The segments of one skb now (Linux's `tcp_tso_autosize`).
    fn tso_segs(&self, ss_ratio: u32, ca_ratio: u32, min_tso_segs: u32) -> u32 {
        self.d.tso_segs(ss_ratio, ca_ratio, min_tso_segs)
    }

    fn next_deadline(&self) -> Option<u64> {
        self.d.next_deadline().map(SimTime::as_nanos)
    }

    fn fire(&mut self, py: Python<'_>, now: u64) -> PyResult<()> {
        let d = &mut self.d;
        caught(py, || {
            d.fire(SimTime::from_nanos(now));
            Ok(())
        })
    }

    /// The segments sent since the last call.
    fn take(&mut self) -> Vec<Sent> {
        self.d
            .take()
            .into_iter()
            .map(|(t, half, h)| {
                (
                    t.as_nanos(),
                    match half {
                        Half::Sender => "sender",
                        Half::Receiver => "receiver",
                    },
                    h.seq,
                    h.ack,
                    h.flags,
                    h.len,
                    h.wnd,
                    h.ts_val,
                    h.ts_ecr,
                    h.sack_blocks().to_vec(),
                    h.retx,
                    h.ect,
                )
            })
            .collect()
    }

    /// The sender's state as a dict (bytes and nanoseconds), or None
    /// before the connection opens.
    fn info<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, pyo3::types::PyDict>>> {
        let Some(i) = self.d.sender_info() else {
            return Ok(None);
        };
        let d = pyo3::types::PyDict::new(py);
        let ns = |x: Option<tcplab_core::time::SimDuration>| x.map(|v| v.as_nanos());
        d.set_item("cwnd", i.cwnd)?;
        d.set_item("ssthresh", i.ssthresh)?;
        d.set_item("mss", i.mss)?;
        d.set_item("ca_state", format!("{:?}", i.ca_state))?;
        d.set_item("snd_una", i.snd_una)?;
        d.set_item("snd_nxt", i.snd_nxt)?;
        d.set_item("snd_max", i.snd_max)?;
        d.set_item("sacked", i.sacked)?;
        d.set_item("lost", i.lost)?;
        d.set_item("retrans", i.retrans)?;
        d.set_item("srtt", ns(i.srtt))?;
        d.set_item("rttvar", i.rttvar.as_nanos())?;
        d.set_item("min_rtt", ns(i.min_rtt))?;
        d.set_item("rto", i.rto.as_nanos())?;
        d.set_item("backoffs", i.backoffs)?;
        d.set_item("dupthresh", i.dupthresh)?;
        d.set_item("segments_sent", i.segments_sent)?;
        d.set_item("retransmitted", i.retransmitted)?;
        d.set_item("timeouts", i.timeouts)?;
        d.set_item("received", self.d.received())?;
        d.set_item("fin_received", self.d.fin_received())?;
        Ok(Some(d))
    }

    /// The sender's events since the last call: (time ns, kind).
    fn events(&mut self) -> Vec<(u64, &'static str)> {
        self.d
            .events()
            .into_iter()
            .map(|e| (e.time.as_nanos(), e.kind.name()))
            .collect()
    }
}
