// SPDX-License-Identifier: MIT OR Apache-2.0
//! Congestion controllers written in Python: the core's trait implemented by
//! calling the methods of a `tcplab.CongestionControl` subclass.
//!
//! The run itself goes on without the GIL; each hook re-acquires it, builds a
//! small `Tcb`/`Ack` view, calls the Python method and reads the window
//! back. A Python exception is kept and stops the run; the bindings re-raise
//! it unchanged.

use std::sync::{Arc, Mutex};

use pyo3::prelude::*;
use tcplab_core::cc::{
    Ack, CaState, CongestionControl, CwndEvent, LossCause, Probe, RateSample, Tcb,
};

/// The connection state a Python controller reads; `cwnd` and `ssthresh`
/// (bytes) may be set.
#[pyclass(name = "Tcb", module = "tcplab")]
pub struct TcbView {
    #[pyo3(get, set)]
    pub cwnd: u64,
    #[pyo3(get, set)]
    pub ssthresh: u64,
    #[pyo3(get)]
    pub mss: u64,
    /// "open", "disorder", "recovery", "loss" or "cwr".
    #[pyo3(get)]
    pub state: &'static str,
    #[pyo3(get)]
    pub bytes_in_flight: u64,
    /// RFC 5681's FlightSize for ssthresh: bytes in flight less those
    /// limited transmit sent since the last ACK of new data.
    #[pyo3(get)]
    pub flight_size: u64,
    #[pyo3(get)]
    pub snd_una: u64,
    #[pyo3(get)]
    pub snd_nxt: u64,
    /// Seconds, or None before the first sample.
    #[pyo3(get)]
    pub srtt: Option<f64>,
    #[pyo3(get)]
    pub min_rtt: Option<f64>,
    #[pyo3(get)]
    pub latest_rtt: Option<f64>,
    /// Simulated time, seconds.
    #[pyo3(get)]
    pub now: f64,
    /// The controller's own pacing rate, bytes per second (0: none; the
    /// sender's formula paces a paced flow). Settable.
    #[pyo3(get, set)]
    pub pacing_rate: f64,
    /// Whether the flow is paced (its `pacing`).
    #[pyo3(get)]
    pub paced: bool,
}

#[pymethods]
impl TcbView {
    /// Whether cwnd is below ssthresh.
    fn in_slow_start(&self) -> bool {
        self.cwnd < self.ssthresh
    }
    fn __repr__(&self) -> String {
        format!(
            "Tcb(cwnd={}, ssthresh={}, mss={}, state={}, in_flight={})",
            self.cwnd, self.ssthresh, self.mss, self.state, self.bytes_in_flight
        )
    }
}

/// One ACK as a Python controller sees it.
#[pyclass(name = "Ack", module = "tcplab")]
pub struct AckView {
    #[pyo3(get)]
    pub bytes_acked: u64,
    #[pyo3(get)]
    pub segments_acked: u32,
    #[pyo3(get)]
    pub is_dup: bool,
    /// A valid RTT sample carried by this ACK, seconds.
    #[pyo3(get)]
    pub rtt: Option<f64>,
    #[pyo3(get)]
    pub now: f64,
}

fn state_name(s: CaState) -> &'static str {
    match s {
        CaState::Open => "open",
        CaState::Disorder => "disorder",
        CaState::Recovery => "recovery",
        CaState::Loss => "loss",
        CaState::Cwr => "cwr",
    }
}

fn view(tcb: &Tcb) -> TcbView {
    let secs = |d: Option<tcplab_core::time::SimDuration>| d.map(|x| x.as_secs_f64());
    TcbView {
        cwnd: tcb.cwnd,
        ssthresh: tcb.ssthresh.min(1 << 53),
        mss: tcb.mss,
        state: state_name(tcb.ca_state),
        bytes_in_flight: tcb.bytes_in_flight(),
        flight_size: tcb.bytes_in_flight() - tcb.limited_sent,
        snd_una: tcb.snd_una,
        snd_nxt: tcb.snd_nxt,
        srtt: secs(tcb.srtt),
        min_rtt: secs(tcb.min_rtt),
        latest_rtt: secs(tcb.latest_rtt),
        now: tcb.now.as_secs_f64(),
        pacing_rate: tcb.pacing_rate,
        paced: tcb.paced,
    }
}

fn ack_view(a: &Ack) -> AckView {
    AckView {
        bytes_acked: a.bytes_acked,
        segments_acked: a.segments_acked,
        is_dup: a.is_dup,
        rtt: a.rtt.map(|d| d.as_secs_f64()),
        now: a.now.as_secs_f64(),
    }
}

/// A delivery-rate sample (Linux's `rate_sample`), as a Python controller's
/// `on_rate_sample` sees it.
#[pyclass(name = "RateSample", module = "tcplab")]
pub struct RateSampleView {
    /// Bytes delivered over the interval, and of them those whose ACKs
    /// echoed congestion.
    #[pyo3(get)]
    pub delivered: u64,
    #[pyo3(get)]
    pub delivered_ce: u64,
    /// The interval, seconds: max(send elapsed, ACK elapsed).
    #[pyo3(get)]
    pub interval: f64,
    /// delivered / interval, bytes per second, or None (no sample on
    /// this ACK).
    #[pyo3(get)]
    pub delivery_rate: Option<f64>,
    /// Bytes this ACK newly delivered (cumulatively or by SACK).
    #[pyo3(get)]
    pub newly_delivered: u64,
    /// Total bytes delivered so far.
    #[pyo3(get)]
    pub total_delivered: u64,
    /// Bytes in flight before and after the ACK.
    #[pyo3(get)]
    pub prior_in_flight: u64,
    #[pyo3(get)]
    pub bytes_in_flight: u64,
    /// The sample's segment was sent while the sender was
    /// application-limited.
    #[pyo3(get)]
    pub is_app_limited: bool,
    /// Bytes marked lost since the sample's segment was sent (Linux's
    /// `rs->lost`), and the bytes in flight, neither SACKed nor marked
    /// lost, when it was sent, itself included (`tx_in_flight`).
    #[pyo3(get)]
    pub lost: u64,
    #[pyo3(get)]
    pub tx_in_flight: u64,
    /// The ACK's RTT sample, seconds, or None.
    #[pyo3(get)]
    pub rtt: Option<f64>,
    #[pyo3(get)]
    pub now: f64,
}

#[pymethods]
impl RateSampleView {
    fn __repr__(&self) -> String {
        format!(
            "RateSample(delivered={}, interval={:.6}, delivery_rate={:?}, app_limited={})",
            self.delivered, self.interval, self.delivery_rate, self.is_app_limited
        )
    }
}

fn rate_view(tcb: &Tcb, rs: &RateSample) -> RateSampleView {
    RateSampleView {
        delivered: rs.delivered,
        delivered_ce: rs.delivered_ce,
        interval: rs.interval.as_secs_f64(),
        delivery_rate: rs.rate(),
        newly_delivered: rs.newly_delivered,
        total_delivered: rs.total_delivered,
        prior_in_flight: rs.prior_in_flight,
        bytes_in_flight: rs.bytes_in_flight,
        is_app_limited: rs.is_app_limited,
        lost: rs.lost,
        tx_in_flight: rs.tx_in_flight,
        rtt: rs.rtt.map(|d| d.as_secs_f64()),
        now: tcb.now.as_secs_f64(),
    }
}

/// The argument after the Tcb view, if any.
enum Extra {
    None,
    Ack(AckView),
    State(&'static str),
    Rate(RateSampleView),
}

/// The first error a Python controller raised, shared with the bindings.
pub type ErrorSlot = Arc<Mutex<Option<PyErr>>>;

pub struct PyCc {
    obj: Py<PyAny>,
    /// Its class, `module.Name`, for messages.
    class: String,
    error: ErrorSlot,
    /// Which optional hooks the object overrides.
    has_sample: bool,
    has_state: bool,
    has_init: bool,
    has_cwnd_event: bool,
    has_undo: bool,
    has_rate_sample: bool,
    /// A pacing rate set in a hook whose view is read-only (`ssthresh`,
    /// `on_ack_sample`, `undo_cwnd`): applied before the next hook that may
    /// write the state, or after a duplicate ACK or one in recovery.
    pending_rate: std::cell::Cell<Option<f64>>,
    /// The quantities it reports about itself (its `probes` attribute).
    probes: Vec<Probe>,
}

impl std::fmt::Debug for PyCc {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "PyCc")
    }
}

impl PyCc {
    pub fn new(py: Python<'_>, obj: Py<PyAny>, error: ErrorSlot) -> PyResult<Self> {
        let o = obj.bind(py);
        for required in ["on_ack", "ssthresh"] {
            if !o.hasattr(required)? {
                return Err(pyo3::exceptions::PyTypeError::new_err(format!(
                    "a Python congestion controller needs a method {required}(tcb, ...)"
                )));
            }
        }
        let mut probes = Vec::new();
        if o.hasattr("probes")? {
            // {name: (unit, meaning)}
            let table = o.getattr("probes")?;
            let table = table.cast::<pyo3::types::PyDict>().map_err(|_| {
                pyo3::exceptions::PyTypeError::new_err(
                    "probes must be a dict {name: (unit, meaning)}",
                )
            })?;
            for (k, v) in table.iter() {
                let name: String = k.extract()?;
                let (unit, meaning): (String, String) = v.extract().map_err(|_| {
                    pyo3::exceptions::PyTypeError::new_err(format!(
                        "probes['{name}'] must be a (unit, meaning) pair of strings"
                    ))
                })?;
                probes.push(Probe {
                    name: name.into(),
                    unit: unit.into(),
                    meaning: meaning.into(),
                });
            }
        }
        let t = o.get_type();
        let class = format!("{}.{}", t.module()?, t.qualname()?);
        Ok(PyCc {
            class,
            has_sample: o.hasattr("on_ack_sample")?,
            has_state: o.hasattr("on_state")?,
            has_init: o.hasattr("init")?,
            has_cwnd_event: o.hasattr("on_cwnd_event")?,
            has_undo: o.hasattr("undo_cwnd")?,
            has_rate_sample: o.hasattr("on_rate_sample")?,
            pending_rate: std::cell::Cell::new(None),
            probes,
            obj,
            error,
        })
    }

    /// A pacing rate the controller set in `method`, checked: a finite
    /// number of bytes per second, 0 or more, and the flow paced if above 0.
    fn pacing_rate(&self, rate: f64, paced: bool, method: &str) -> PyResult<f64> {
        let class = &self.class;
        if !rate.is_finite() || rate < 0.0 {
            return Err(pyo3::exceptions::PyValueError::new_err(format!(
                "{method}() of the Python controller {class} set tcb.pacing_rate = {rate}; it \
                 must be a finite rate in bytes per second, 0 or more (0: the sender's own \
                 formula)"
            )));
        }
        if rate > 0.0 && !paced {
            return Err(pyo3::exceptions::PyValueError::new_err(format!(
                "{method}() of the Python controller {class} set tcb.pacing_rate, but its flow \
                 is not paced: give the class the attribute pacing = True, or pass \
                 pacing=True to net.tcp (a class named by import path, cc = {{ name = \
                 \"python\", class = ... }}, does not bring its attributes: set pacing on \
                 the flow)"
            )));
        }
        Ok(rate)
    }

    /// A rate set in a read-only hook's view (`method`), checked and kept
    /// for [`Self::apply_pending`].
    fn keep_rate(&self, rate: f64, tcb: &Tcb, method: &str) -> PyResult<()> {
        if rate != tcb.pacing_rate {
            let r = self.pacing_rate(rate, tcb.paced, method)?;
            self.pending_rate.set(Some(r));
        }
        Ok(())
    }

    /// A rate a read-only hook set, into the state.
    fn apply_pending(&self, tcb: &mut Tcb) {
        if let Some(r) = self.pending_rate.take() {
            tcb.pacing_rate = r;
        }
    }

    fn failed(&self) -> bool {
        self.error.lock().map(|e| e.is_some()).unwrap_or(true)
    }

    fn keep(&self, e: PyErr) {
        if let Ok(mut slot) = self.error.lock() {
            slot.get_or_insert(e);
        }
    }

    /// Calls `method(tcb_view[, extra])` and writes cwnd/ssthresh back.
    fn call_mut(&self, tcb: &mut Tcb, method: &str, extra: Extra) {
        if self.failed() {
            return;
        }
        self.apply_pending(tcb);
        let r = Python::attach(|py| -> PyResult<()> {
            let v = Py::new(py, view(tcb))?;
            let o = self.obj.bind(py);
            match extra {
                Extra::None => o.call_method1(method, (v.clone_ref(py),))?,
                Extra::Ack(a) => o.call_method1(method, (v.clone_ref(py), Py::new(py, a)?))?,
                Extra::State(name) => o.call_method1(method, (v.clone_ref(py), name))?,
                Extra::Rate(r) => o.call_method1(method, (v.clone_ref(py), Py::new(py, r)?))?,
            };
            let v = v.borrow(py);
            if v.pacing_rate != tcb.pacing_rate {
                tcb.pacing_rate = self.pacing_rate(v.pacing_rate, tcb.paced, method)?;
            }
            tcb.set_cwnd(v.cwnd);
            // ssthresh crosses as at most 2^53 (a float-safe "unlimited"):
            // write it back only if the controller changed it.
            if v.ssthresh != tcb.ssthresh.min(1 << 53) {
                // At most 2^53: the core adds segments to it (ssthresh + 3 MSS).
                tcb.ssthresh = v.ssthresh.clamp(tcb.mss, 1 << 53);
            }
            Ok(())
        });
        if let Err(e) = r {
            self.keep(e);
        }
    }
}

/// What a controller's `ssthresh()` returned, as bytes: a whole number of
/// 0 or more (one beyond 2^64 is as unlimited as 2^53, where it is capped).
/// Anything else is an error naming the hook, the class and the value.
fn ssthresh_bytes(out: &Bound<'_, PyAny>, class: &str) -> PyResult<u64> {
    if let Ok(v) = out.extract::<u64>() {
        return Ok(v);
    }
    let is_int = out.is_instance_of::<pyo3::types::PyInt>();
    if is_int && out.gt(0)? {
        return Ok(u64::MAX);
    }
    let shown = out
        .repr()
        .map(|r| r.to_string())
        .unwrap_or_else(|_| "?".into());
    let message = format!(
        "ssthresh() of the Python controller {class} returned {shown}; it must return the new \
         ssthresh in bytes, a whole number of 0 or more (e.g. max(tcb.flight_size // 2, 2 * \
         tcb.mss))"
    );
    if is_int || out.is_instance_of::<pyo3::types::PyFloat>() {
        Err(pyo3::exceptions::PyValueError::new_err(message))
    } else {
        Err(pyo3::exceptions::PyTypeError::new_err(message))
    }
}

impl CongestionControl for PyCc {
    fn name(&self) -> &'static str {
        "python"
    }

    fn init(&mut self, tcb: &mut Tcb) {
        if self.has_init {
            self.call_mut(tcb, "init", Extra::None);
        }
    }

    fn on_ack_sample(&mut self, tcb: &Tcb, ack: &Ack) {
        if !self.has_sample || self.failed() {
            return;
        }
        let r = Python::attach(|py| -> PyResult<()> {
            let v = Py::new(py, view(tcb))?;
            let a = Py::new(py, ack_view(ack))?;
            self.obj
                .bind(py)
                .call_method1("on_ack_sample", (v.clone_ref(py), a))?;
            let rate = v.borrow(py).pacing_rate;
            self.keep_rate(rate, tcb, "on_ack_sample")
        });
        if let Err(e) = r {
            self.keep(e);
        }
    }

    fn increase_window(&mut self, tcb: &mut Tcb, ack: &Ack) {
        self.call_mut(tcb, "on_ack", Extra::Ack(ack_view(ack)));
    }

    fn ssthresh(&mut self, tcb: &Tcb, cause: LossCause) -> u64 {
        let fallback = tcplab_core::cc::reno_ssthresh(tcb);
        if self.failed() {
            return fallback;
        }
        let cause = match cause {
            LossCause::DupAcks => "dupacks",
            LossCause::Timeout => "timeout",
            LossCause::Ecn => "ecn",
        };
        let r = Python::attach(|py| -> PyResult<u64> {
            let v = Py::new(py, view(tcb))?;
            let out = self
                .obj
                .bind(py)
                .call_method1("ssthresh", (v.clone_ref(py), cause))?;
            let rate = v.borrow(py).pacing_rate;
            self.keep_rate(rate, tcb, "ssthresh")?;
            ssthresh_bytes(&out, &self.class)
        });
        match r {
            Ok(v) => v.clamp(tcb.mss, 1 << 53),
            Err(e) => {
                self.keep(e);
                fallback
            }
        }
    }

    fn after_ack(&mut self, tcb: &mut Tcb) {
        self.apply_pending(tcb);
    }

    fn on_state(&mut self, tcb: &mut Tcb, to: CaState) {
        if self.has_state {
            self.call_mut(tcb, "on_state", Extra::State(state_name(to)));
        }
    }

    fn cwnd_event(&mut self, tcb: &mut Tcb, ev: CwndEvent) {
        if self.has_cwnd_event {
            let name = match ev {
                CwndEvent::TxStart => "tx_start",
                CwndEvent::Restart => "restart",
                CwndEvent::TlpRecovery => "tlp_recovery",
            };
            self.call_mut(tcb, "on_cwnd_event", Extra::State(name));
        }
    }

    /// `undo_cwnd(tcb, prior_cwnd)` if the object has it, else Linux's
    /// default, max(cwnd, prior_cwnd).
    fn undo_cwnd(&mut self, tcb: &Tcb, prior_cwnd: u64) -> u64 {
        let fallback = tcb.cwnd.max(prior_cwnd);
        if !self.has_undo || self.failed() {
            return fallback;
        }
        let r = Python::attach(|py| -> PyResult<u64> {
            let v = Py::new(py, view(tcb))?;
            let out = self
                .obj
                .bind(py)
                .call_method1("undo_cwnd", (v.clone_ref(py), prior_cwnd))?;
            let rate = v.borrow(py).pacing_rate;
            self.keep_rate(rate, tcb, "undo_cwnd")?;
            out.extract::<u64>()
        });
        match r {
            Ok(v) => v.max(tcb.mss),
            Err(e) => {
                self.keep(e);
                fallback
            }
        }
    }

    fn wants_rate_samples(&self) -> bool {
        self.has_rate_sample
    }

    /// `on_rate_sample(tcb, rs)`: after each ACK, once loss detection and
    /// the recovery have run (Linux's `cong_control`).
    fn control(&mut self, tcb: &mut Tcb, rs: &RateSample) {
        if self.has_rate_sample {
            self.call_mut(tcb, "on_rate_sample", Extra::Rate(rate_view(tcb, rs)));
        }
    }

    fn probes(&self) -> Vec<Probe> {
        self.probes.clone()
    }

    fn probe(&self, name: &str) -> Option<f64> {
        if self.failed() {
            return None;
        }
        let r = Python::attach(|py| -> PyResult<Option<f64>> {
            self.obj.bind(py).call_method1("probe", (name,))?.extract()
        });
        match r {
            Ok(v) => v,
            Err(e) => {
                self.keep(e);
                None
            }
        }
    }
}
