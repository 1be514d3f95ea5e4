// SPDX-License-Identifier: MIT OR Apache-2.0
//! `tcplab._core`: the thin PyO3 layer over tcplab-core.
//!
//! It converts, maps errors and releases the GIL; nothing else. A scenario
//! arrives as the plain data the Python builders and TOML files produce,
//! read straight from the Python objects (`pyde`) or, when they are not
//! plain, as JSON text. It runs to completion with the GIL released and
//! comes back as typed columns (u64 or f64 values that numpy reads in
//! place, NUL-joined strings) with a small JSON part (summary, timing,
//! pcap files). Core errors become the exception classes of
//! `tcplab.errors`, with their `path`, `problem` and `allowed` attributes;
//! a Rust panic becomes `tcplab.errors.InternalError`, never a
//! `PanicException`.

use std::collections::HashMap;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

mod pycc;
mod pyde;
mod pydrill;

use pycc::ErrorSlot;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyString};
use tcplab_core::alloc::OutOfMemory;
use tcplab_core::results::ColumnData;
use tcplab_core::Error;

fn raise(py: Python<'_>, err: Error) -> PyErr {
    let build = || -> PyResult<PyErr> {
        let errors = py.import("tcplab.errors")?;
        let message = err.to_string();
        let exc = match &err {
            Error::Invalid {
                path,
                problem,
                allowed,
            } => errors.getattr("ScenarioError")?.call1((
                message,
                path.clone(),
                problem.clone(),
                allowed.clone(),
            ))?,
            Error::Unroutable {
                path,
                from,
                to,
                detail,
            } => errors.getattr("RoutingError")?.call1((
                message,
                path.clone(),
                from.clone(),
                to.clone(),
                detail.clone(),
            ))?,
            Error::Io(_) => errors.getattr("TcplabError")?.call1((message,))?,
            Error::Internal(_) => errors.getattr("InternalError")?.call1((message,))?,
            Error::Interrupted => {
                return Ok(pyo3::exceptions::PyKeyboardInterrupt::new_err(message));
            }
            Error::OutOfMemory(_) => {
                return Ok(pyo3::exceptions::PyMemoryError::new_err(message));
            }
        };
        Ok(PyErr::from_value(exc))
    };
    build().unwrap_or_else(|e| e)
}

fn panic_text(p: Box<dyn std::any::Any + Send>) -> String {
    if let Some(s) = p.downcast_ref::<&str>() {
        s.to_string()
    } else if let Some(s) = p.downcast_ref::<String>() {
        s.clone()
    } else {
        "unknown panic".to_string()
    }
}

/// Runs `f` with the GIL released; a core error or a panic becomes the
/// matching `tcplab.errors` exception, and a buffer that could not grow
/// (see `tcplab_core::alloc`) a `MemoryError`.
fn guarded<T: Send>(py: Python<'_>, f: impl FnOnce() -> Result<T, Error> + Send) -> PyResult<T> {
    match py.detach(move || catch_unwind(AssertUnwindSafe(f))) {
        Ok(Ok(v)) => Ok(v),
        Ok(Err(e)) => Err(raise(py, e)),
        Err(p) => match p.downcast_ref::<OutOfMemory>() {
            Some(oom) => Err(raise(py, Error::OutOfMemory(oom.to_string()))),
            None => Err(raise(
                py,
                Error::Internal(format!("the core panicked: {}", panic_text(p))),
            )),
        },
    }
}

/// How often a run, asked every few thousand events, looks at Python's
/// pending signals (with the GIL, which the run otherwise does not hold).
const SIGNAL_CHECK: Duration = Duration::from_millis(50);
/// How often a run calls its `progress` callable (wall time).
const PROGRESS_EVERY: Duration = Duration::from_millis(500);

/// The `stop` question a run asks: yes once a Python controller has
/// raised (its exception waits in `cc_error`); else, at most every
/// [`SIGNAL_CHECK`], takes the GIL and runs Python's signal handlers. If
/// one raises (Ctrl-C's `KeyboardInterrupt`, or a handler of the user's),
/// the run stops and the exception is kept in `raised`. Either is raised
/// when the run has returned.
fn signal_poll<'a>(
    raised: &'a ErrorSlot,
    cc_error: &'a ErrorSlot,
    progress: Option<&'a Py<PyAny>>,
) -> impl FnMut(tcplab_core::time::SimTime, u64) -> bool + 'a {
    let mut last = Instant::now();
    let mut shown = Instant::now();
    move |now, events| {
        if cc_error.lock().map_or(true, |e| e.is_some()) {
            return true;
        }
        if last.elapsed() < SIGNAL_CHECK {
            return false;
        }
        last = Instant::now();
        Python::attach(|py| {
            let mut result = py.check_signals();
            if let (Ok(()), Some(f)) = (&result, progress) {
                if shown.elapsed() >= PROGRESS_EVERY {
                    shown = Instant::now();
                    let seconds = now.as_nanos() as f64 / 1e9;
                    result = f.call1(py, (seconds, events)).map(|_| ());
                }
            }
            match result {
                Ok(()) => false,
                Err(e) => {
                    if let Ok(mut slot) = raised.lock() {
                        slot.get_or_insert(e);
                    }
                    true
                }
            }
        })
    }
}

/// The effective scenario of a run (every default filled in), kept in the
/// core until Python asks for it: with many flows it is large and often
/// not needed.
#[pyclass(name = "EffectiveScenario", module = "tcplab")]
pub struct EffectiveScenario {
    scenario: tcplab_core::Scenario,
}

#[pymethods]
impl EffectiveScenario {
    /// The scenario as JSON text.
    fn json(&self) -> String {
        self.scenario.to_json()
    }
}

/// A numeric result column, handed to Python without a copy: a million
/// flows' results are about a gigabyte of columns, which copying into
/// `bytes` would write a second time. numpy reads it in place through
/// `__array_interface__` (the array keeps the column alive); `tobytes()`
/// gives its values as little-endian bytes for readers without numpy.
#[pyclass(name = "Column", module = "tcplab", frozen)]
pub struct Column {
    data: ColumnData,
}

impl Column {
    /// The values' address and typestr (numpy's: byte order, kind, size).
    fn raw(&self) -> (usize, usize, &'static str) {
        let big = cfg!(target_endian = "big");
        match &self.data {
            ColumnData::U64(v) => (
                v.as_ptr() as usize,
                v.len(),
                if big { ">u8" } else { "<u8" },
            ),
            ColumnData::F64(v) => (
                v.as_ptr() as usize,
                v.len(),
                if big { ">f8" } else { "<f8" },
            ),
            ColumnData::Str(_) => unreachable!("text columns cross as str"),
        }
    }
}

#[pymethods]
impl Column {
    /// The number of values.
    fn __len__(&self) -> usize {
        self.raw().1
    }

    /// numpy's array interface (version 3): one dimension, read-only.
    #[getter]
    fn __array_interface__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let (address, len, typestr) = self.raw();
        let d = PyDict::new(py);
        d.set_item("shape", (len,))?;
        d.set_item("typestr", typestr)?;
        d.set_item("data", (address, true))?;
        d.set_item("version", 3)?;
        Ok(d)
    }

    /// The values as little-endian bytes, 8 per value.
    fn tobytes(&self, py: Python<'_>) -> PyResult<Py<PyBytes>> {
        match &self.data {
            ColumnData::U64(v) => le_bytes(py, v, u64::to_le_bytes),
            ColumnData::F64(v) => le_bytes(py, v, f64::to_le_bytes),
            ColumnData::Str(_) => unreachable!("text columns cross as str"),
        }
    }
}

/// A scenario as it crosses into the core: JSON text still to parse, or
/// already read from Python's plain data (with the seconds that took).
enum Input {
    Text(String),
    Read(Box<tcplab_core::Scenario>, f64),
}

impl Input {
    /// `scenario`: JSON text, or the scenario's data as a dict. A dict of
    /// plain data is read directly ([`pyde`]); any other dict, or one the
    /// scenario refuses, goes through `tcplab.scenario_io.scenario_json`
    /// and the JSON parser, which convert what they can and word the errors.
    fn new(py: Python<'_>, scenario: &Bound<'_, PyAny>) -> PyResult<Input> {
        if let Ok(text) = scenario.cast::<PyString>() {
            return Ok(Input::Text(text.to_str()?.to_owned()));
        }
        let t = Instant::now();
        let read = catch_unwind(AssertUnwindSafe(|| {
            pyde::from_py::<tcplab_core::Scenario>(scenario)
        }));
        if let Ok(Some(sc)) = read {
            return Ok(Input::Read(Box::new(sc), t.elapsed().as_secs_f64()));
        }
        let text = py
            .import("tcplab.scenario_io")?
            .call_method1("scenario_json", (scenario,))?;
        Ok(Input::Text(text.extract()?))
    }

    /// The scenario, and the seconds its parsing took. Run with the GIL
    /// released.
    fn scenario(self) -> Result<(tcplab_core::Scenario, f64), Error> {
        match self {
            Input::Text(text) => {
                let t = Instant::now();
                let sc = tcplab_core::Scenario::from_json(&text)?;
                drop(text);
                Ok((sc, t.elapsed().as_secs_f64()))
            }
            Input::Read(sc, seconds) => Ok((*sc, seconds)),
        }
    }
}

/// Parses, checks, builds and runs a scenario given as JSON text or as its
/// plain data (a dict; see [`Input::new`]). Returns a
/// dict: `tables` (per table, its columns: `("u8", Column)` or `("f8",
/// Column)`, or `("str", text)`, the values joined with NUL),
/// `small` (the summary, timing and pcap files as JSON text), `scenario`
/// (an [`EffectiveScenario`]) and `series` (name, target, times as u64 ns
/// and values as f64, as bytes). `custom` maps flows' entry indices to Python
/// congestion controllers (flows whose cc is "python"). `progress`, if
/// given, is called about twice a second of wall time with the simulated
/// seconds and the events so far; what it raises stops the run.
#[pyfunction]
#[pyo3(signature = (scenario, custom=None, progress=None))]
fn run_json<'py>(
    py: Python<'py>,
    scenario: &Bound<'py, PyAny>,
    custom: Option<HashMap<usize, Py<PyAny>>>,
    progress: Option<Py<PyAny>>,
) -> PyResult<Bound<'py, PyDict>> {
    let input = Input::new(py, scenario)?;
    let error: pycc::ErrorSlot = Arc::new(Mutex::new(None));
    let mut ccs = HashMap::new();
    for (i, obj) in custom.unwrap_or_default() {
        ccs.insert(i, pycc::PyCc::new(py, obj, error.clone())?);
    }
    let signal: ErrorSlot = Arc::new(Mutex::new(None));
    let raised = signal.clone();
    let cc_error = error.clone();
    let result = guarded(py, move || {
        let (sc, parse) = input.scenario()?;
        let mut supply = |i: usize| {
            ccs.remove(&i)
                .map(|c| Box::new(c) as Box<dyn tcplab_core::cc::CongestionControl>)
        };
        let (tables, r) = tcplab_core::run_owned(
            sc,
            &mut supply,
            &mut signal_poll(&raised, &cc_error, progress.as_ref()),
        )?;
        Ok((tables, r, parse))
    });
    // A Python controller's own exception is re-raised unchanged, and so is
    // what a signal handler raised (KeyboardInterrupt).
    for slot in [&error, &signal] {
        if let Some(e) = slot.lock().ok().and_then(|mut slot| slot.take()) {
            return Err(e);
        }
    }
    let (tables, r, parse) = result?;
    let t = Instant::now();
    let out = PyDict::new(py);
    let py_tables = PyDict::new(py);
    for (name, cols) in tables {
        let t = PyDict::new(py);
        for (col, data) in cols {
            let v: (&str, Py<PyAny>) = match data {
                ColumnData::Str(s) => ("str", PyString::new(py, &s).into_any().unbind()),
                ColumnData::U64(_) => ("u8", Py::new(py, Column { data })?.into_any()),
                ColumnData::F64(_) => ("f8", Py::new(py, Column { data })?.into_any()),
            };
            t.set_item(col, v)?;
        }
        py_tables.set_item(name, t)?;
    }
    out.set_item("tables", py_tables)?;
    let mut timing =
        serde_json::to_value(&r.timing).map_err(|e| raise(py, Error::Internal(e.to_string())))?;
    timing["parse_seconds"] = parse.into();
    timing["tables_seconds"] = t.elapsed().as_secs_f64().into();
    let small = serde_json::json!({
        "summary": r.summary,
        "timing": timing,
        "pcap": r.pcap,
    })
    .to_string();
    out.set_item("small", small)?;
    out.set_item(
        "scenario",
        Py::new(
            py,
            EffectiveScenario {
                scenario: r.scenario,
            },
        )?,
    )?;
    // Each series is written straight into its Python bytes and then freed,
    // so a recorded sample is never held three times.
    let mut py_series = Vec::with_capacity(r.series.len());
    for s in r.series {
        let t = le_bytes(py, &s.times_ns, u64::to_le_bytes)?;
        let v = le_bytes(py, &s.values, f64::to_le_bytes)?;
        py_series.push((s.name, s.target, t, v));
    }
    out.set_item("series", py_series)?;
    Ok(out)
}

/// `xs` as little-endian bytes in a new Python `bytes`.
fn le_bytes<T: Copy>(py: Python<'_>, xs: &[T], f: fn(T) -> [u8; 8]) -> PyResult<Py<PyBytes>> {
    let b = PyBytes::new_with(py, xs.len() * 8, |buf| {
        for (chunk, &x) in buf.chunks_exact_mut(8).zip(xs) {
            chunk.copy_from_slice(&f(x));
        }
        Ok(())
    })?;
    Ok(b.unbind())
}

/// Checks a scenario without running it; returns the effective scenario
/// (every default filled in) as JSON text, indented by two spaces with
/// `pretty` (what `tcplab check` prints). `custom` as for `run_json`.
///
/// It holds no more than a run does: the scenario is taken, not copied,
/// and the world built from it (to check what the run checks before its
/// first event) is freed before the text is written.
#[pyfunction]
#[pyo3(signature = (scenario, custom=None, pretty=false))]
fn check_json(
    py: Python<'_>,
    scenario: &Bound<'_, PyAny>,
    custom: Option<HashMap<usize, Py<PyAny>>>,
    pretty: bool,
) -> PyResult<String> {
    let input = Input::new(py, scenario)?;
    let error: pycc::ErrorSlot = Arc::new(Mutex::new(None));
    let mut ccs = HashMap::new();
    for (i, obj) in custom.unwrap_or_default() {
        ccs.insert(i, pycc::PyCc::new(py, obj, error.clone())?);
    }
    guarded(py, move || {
        let (sc, _) = input.scenario()?;
        let mut supply = |i: usize| {
            ccs.remove(&i)
                .map(|c| Box::new(c) as Box<dyn tcplab_core::cc::CongestionControl>)
        };
        let world = tcplab_core::World::build_owned(sc, &mut supply)?;
        let effective = world.into_effective_scenario();
        Ok(if pretty {
            effective.to_json_pretty()
        } else {
            effective.to_json()
        })
    })
}

/// Panics inside the guarded runner: lets the tests prove that a Rust panic
/// reaches Python as `tcplab.errors.InternalError`.
#[pyfunction]
fn _panic_for_tests(py: Python<'_>) -> PyResult<()> {
    guarded(py, || -> Result<(), Error> {
        panic!("deliberate panic for the test suite")
    })
}

/// The named TCP variants: name, usual recovery (per profile too),
/// summary, their parameters' defaults under each settings profile, their
/// quantities and forms, as JSON text: `tl.schema()`'s list.
#[pyfunction]
fn variants_json() -> String {
    serde_json::Value::Array(tcplab_core::schema::variants()).to_string()
}

/// The settings profiles' TCP defaults, one row per setting with its value
/// and source per profile (`tl.schema()["profile_defaults"]`), and the
/// variants' names, as JSON text: what the CLI's help lists, without
/// building the rest of the schema.
#[pyfunction]
fn profiles_json() -> String {
    let mut table = tcplab_core::scenario::profile_table::export();
    let names: Vec<&str> = tcplab_core::cc::registry::VARIANTS
        .iter()
        .map(|v| v.name)
        .collect();
    table["variants"] = names.into();
    table.to_string()
}

/// Every scenario field, variant, recording and result column, with units,
/// defaults and sources, as JSON text (`tl.schema()`).
#[pyfunction]
fn schema_json() -> String {
    tcplab_core::schema::export().to_string()
}

/// Parses a rate ("10Mbps") into bit/s.
#[pyfunction]
fn parse_rate(s: &str) -> PyResult<u64> {
    tcplab_core::units::parse_rate(s)
        .map(|r| r.bps())
        .map_err(pyo3::exceptions::PyValueError::new_err)
}

/// Parses a duration ("45ms") into nanoseconds.
/// The bare event loop (bench/engine.py): (wall seconds, checksum) for
/// `events` steps with `pending` events queued.
#[pyfunction]
fn bench_event_loop(py: Python<'_>, events: u64, pending: u32) -> (f64, u64) {
    py.detach(|| tcplab_core::engine::microbench::event_loop(events, pending))
}

#[pyfunction]
fn parse_duration(s: &str) -> PyResult<u64> {
    tcplab_core::units::parse_duration(s)
        .map(|d| d.as_nanos())
        .map_err(pyo3::exceptions::PyValueError::new_err)
}

/// Parses a size ("10MiB") into bytes.
#[pyfunction]
fn parse_size(s: &str) -> PyResult<u64> {
    tcplab_core::units::parse_size(s).map_err(pyo3::exceptions::PyValueError::new_err)
}

#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    // A buffer that cannot grow unwinds with `OutOfMemory`, which becomes a
    // MemoryError: not a panic worth printing.
    let previous = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        if !info.payload().is::<OutOfMemory>() {
            previous(info);
        }
    }));
    m.add_function(wrap_pyfunction!(run_json, m)?)?;
    m.add_class::<pydrill::PyDrill>()?;
    m.add_function(wrap_pyfunction!(check_json, m)?)?;
    m.add_function(wrap_pyfunction!(_panic_for_tests, m)?)?;
    m.add_function(wrap_pyfunction!(parse_rate, m)?)?;
    m.add_function(wrap_pyfunction!(variants_json, m)?)?;
    m.add_function(wrap_pyfunction!(schema_json, m)?)?;
    m.add_function(wrap_pyfunction!(profiles_json, m)?)?;
    m.add_class::<pycc::TcbView>()?;
    m.add_class::<EffectiveScenario>()?;
    m.add_class::<Column>()?;
    m.add_class::<pycc::AckView>()?;
    m.add_class::<pycc::RateSampleView>()?;
    m.add_function(wrap_pyfunction!(parse_duration, m)?)?;
    m.add_function(wrap_pyfunction!(bench_event_loop, m)?)?;
    m.add_function(wrap_pyfunction!(parse_size, m)?)?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
