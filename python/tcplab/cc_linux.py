"""The variants that came with Linux's modules, with their parameters.

Loss-based high-speed TCPs, delay-based and low-priority ones.

``net.tcp(..., cc="veno")`` uses a variant with its profile's defaults;
``cc=tl.Veno(beta=4)`` sets parameters (unset ones keep the defaults).
docs/variants.md describes each, with its sources and deviations.
"""

from __future__ import annotations

from tcplab.cc import Variant


class Veno(Variant):
    """TCP Veno (Fu & Liew 2003; Linux's tcp_veno.c).

    Args:
        beta: the backlog, in segments, at or above which a loss is taken
            for congestion (halve) rather than random (keep 4/5); 3.
        version: ``"ns3"`` runs ns-3 3.44's TcpVeno (the ns3 profile's
            default).
    """

    name = "veno"

    def __init__(self, *, beta: float | None = None, version: str | None = None) -> None:
        super().__init__(beta=beta, version=version)


class HighSpeed(Variant):
    """HighSpeed TCP (RFC 3649).

    Args:
        aimd: ``"rfc"`` (RFC 3649's functions at the current window) or
            ``"table"`` (Linux's tcp_highspeed.c table; linux and ns3).
        low_window, high_window: the windows (segments) where the response
            function starts and reaches ``high_p``; low_p, high_p: the loss
            rates there; high_decrease: b(w) at high_window.
        version: ``"ns3"`` runs ns-3 3.44's TcpHighSpeed (the ns3 profile's
            default; no parameters).
    """

    name = "highspeed"

    def __init__(self, *, aimd: str | None = None, low_window: float | None = None,
                 high_window: float | None = None, low_p: float | None = None,
                 high_p: float | None = None, high_decrease: float | None = None,
                 version: str | None = None) -> None:
        super().__init__(aimd=aimd, low_window=low_window, high_window=high_window,
                         low_p=low_p, high_p=high_p, high_decrease=high_decrease,
                         version=version)


class Scalable(Variant):
    """Scalable TCP (Kelly 2003; Linux's tcp_scalable.c).

    Args:
        form: ``"paper"`` (a per ACK above ``low_window``, standard TCP
            below) or ``"linux"`` (one segment per min(cwnd, 1/a) segments).
        a: the increase per acknowledged segment (0.01); b: the decrease
            (0.125); low_window: the legacy window (16 segments; paper form).
        version: ``"ns3"`` runs ns-3 3.44's TcpScalable (the ns3 profile's
            default), whose parameters are ns-3's ai_factor (50 segments)
            and md_factor (0.125).
    """

    name = "scalable"

    def __init__(self, *, form: str | None = None, a: float | None = None,
                 b: float | None = None, low_window: int | None = None,
                 ai_factor: int | None = None, md_factor: float | None = None,
                 version: str | None = None) -> None:
        super().__init__(form=form, a=a, b=b, low_window=low_window, ai_factor=ai_factor,
                         md_factor=md_factor, version=version)


class Bic(Variant):
    """BIC (Xu, Harfoush & Rhee 2004; Linux's tcp_bic.c).

    Args:
        b: the binary-search divisor (4); max_increment: the largest step
            (16 segments); smooth_part: steps near the maximum (20);
        low_window: Reno at or below it (14 segments); beta: kept on a loss,
            in 1024ths (819); fast_convergence; initial_ssthresh (0: none).
        version: ``"ns3"`` runs ns-3 3.44's TcpBic (the ns3 profile's
            default): b, max_increment, low_window, fast_convergence as
            above, smooth_part 5, beta a fraction (0.8).
    """

    name = "bic"

    def __init__(self, *, b: int | None = None, max_increment: int | None = None,
                 smooth_part: int | None = None, low_window: int | None = None,
                 beta: float | None = None, fast_convergence: bool | None = None,
                 initial_ssthresh: int | None = None, version: str | None = None) -> None:
        super().__init__(b=b, max_increment=max_increment, smooth_part=smooth_part,
                         low_window=low_window, beta=beta, fast_convergence=fast_convergence,
                         initial_ssthresh=initial_ssthresh, version=version)


class Hybla(Variant):
    """TCP Hybla (Caini & Firrincieli 2004; Linux's tcp_hybla.c).

    Args:
        rtt0: the reference RTT ("25ms"); fixed_point: Linux's arithmetic
            (rho in eighths, its 2^x table); reno_outside_open: Reno's
            growth outside Open (Linux); ssthresh_from_cwnd: half the
            window rather than half the flight (Linux). ``version="ns3"``
            runs ns-3 3.44's TcpHybla instead (the ns3 profile's default;
            its only parameter is rtt0, ns-3's RRTT of "50ms").
    """

    name = "hybla"

    def __init__(self, *, rtt0: str | float | None = None, fixed_point: bool | None = None,
                 reno_outside_open: bool | None = None,
                 ssthresh_from_cwnd: bool | None = None, version: str | None = None) -> None:
        super().__init__(rtt0=rtt0, fixed_point=fixed_point,
                         reno_outside_open=reno_outside_open,
                         ssthresh_from_cwnd=ssthresh_from_cwnd, version=version)


class Illinois(Variant):
    """TCP-Illinois (Liu, Başar & Srikant 2006; Linux's tcp_illinois.c).

    Args:
        alpha_min, alpha_max: the additive increase's range (0.3, 10);
        beta_min, beta_max: the decrease's range (1/8, 1/2); theta: quiet
            rounds before alpha returns to its maximum (5); win_thresh:
            Reno below it (15 segments).
        version: ``"ns3"`` runs ns-3 3.44's TcpIllinois (the ns3 profile's
            default), which also takes alpha_base (1) and beta_base (0.5).
    """

    name = "illinois"

    def __init__(self, *, alpha_min: float | None = None, alpha_max: float | None = None,
                 beta_min: float | None = None, beta_max: float | None = None,
                 theta: int | None = None, win_thresh: int | None = None,
                 alpha_base: float | None = None, beta_base: float | None = None,
                 version: str | None = None) -> None:
        super().__init__(alpha_min=alpha_min, alpha_max=alpha_max, beta_min=beta_min,
                         beta_max=beta_max, theta=theta, win_thresh=win_thresh,
                         alpha_base=alpha_base, beta_base=beta_base, version=version)


class Htcp(Variant):
    """H-TCP (Leith & Shorten 2004; Linux's tcp_htcp.c).

    Args:
        delta_l: Reno's period after a loss ("1s"); beta_min, beta_max: the
            decrease's range (0.5, 0.8); use_rtt_scaling,
            use_bandwidth_switch: Linux's switches; hz: Linux's clock (1000).
        version: ``"ns3"`` runs ns-3 3.44's TcpHtcp (the ns3 profile's
            default): delta_l, default_backoff (0.5), throughput_ratio (0.2).
    """

    name = "htcp"

    def __init__(self, *, delta_l: str | float | None = None, beta_min: float | None = None,
                 beta_max: float | None = None, use_rtt_scaling: bool | None = None,
                 use_bandwidth_switch: bool | None = None, hz: int | None = None,
                 default_backoff: float | None = None, throughput_ratio: float | None = None,
                 version: str | None = None) -> None:
        super().__init__(delta_l=delta_l, beta_min=beta_min, beta_max=beta_max,
                         use_rtt_scaling=use_rtt_scaling,
                         use_bandwidth_switch=use_bandwidth_switch, hz=hz,
                         default_backoff=default_backoff, throughput_ratio=throughput_ratio,
                         version=version)


class Yeah(Variant):
    """YeAH-TCP (Baiocchi, Castellani & Vacirca 2007; Linux's tcp_yeah.c).

    Args: Linux's module parameters alpha (80), gamma (1), delta (3),
        epsilon (1), phy (8), rho (16), zeta (50), and scalable_ai_cnt (100);
        ``version="ns3"`` runs ns-3 3.44's TcpYeah instead (the ns3
        profile's default; the same parameters, ns-3's attributes).
    """

    name = "yeah"

    def __init__(self, *, alpha: int | None = None, gamma: int | None = None,
                 delta: int | None = None, epsilon: int | None = None, phy: int | None = None,
                 rho: int | None = None, zeta: int | None = None,
                 scalable_ai_cnt: int | None = None, version: str | None = None) -> None:
        super().__init__(alpha=alpha, gamma=gamma, delta=delta, epsilon=epsilon, phy=phy,
                         rho=rho, zeta=zeta, scalable_ai_cnt=scalable_ai_cnt, version=version)


class Lp(Variant):
    """TCP-LP (Kuzmanovic & Knightly 2003; Linux's tcp_lp.c).

    Args:
        threshold_percent: the delay threshold within [min, max] (15);
        inference_rtts: the inference time in RTTs (3);
        delay: ``"timestamps"`` (Linux's one-way delay from TCP timestamps,
            the remote clock's rate estimated; the linux profile),
            ``"ns3"`` (ns-3's TcpLp: TSval - TSecr; the ns3 profile) or
            ``"rtt"`` (the RTT sample; the other profiles).
    """

    name = "lp"

    def __init__(self, *, threshold_percent: int | None = None,
                 inference_rtts: int | None = None, delay: str | None = None) -> None:
        super().__init__(threshold_percent=threshold_percent, inference_rtts=inference_rtts,
                         delay=delay)


class Ledbat(Variant):
    """LEDBAT (RFC 6817; ns-3's TcpLedbat with the ns3 profile).

    Args:
        target: the queuing-delay target in seconds (0.1); gain (1);
        base_history: minutes of base delays (10); current_filter: samples
        in the current delay's filter (4); allowed_increase (1; 0 in ns-3's
        form, which caps the window at the flight); min_cwnd
        (2 segments); slow_start: ns-3's slow start; form: ``"rfc"`` or
        ``"ns3"``.
    """

    name = "ledbat"

    def __init__(self, *, form: str | None = None, target: float | None = None,
                 gain: float | None = None, base_history: int | None = None,
                 current_filter: int | None = None, allowed_increase: float | None = None,
                 min_cwnd: int | None = None, slow_start: bool | None = None) -> None:
        super().__init__(form=form, target=target, gain=gain, base_history=base_history,
                         current_filter=current_filter, allowed_increase=allowed_increase,
                         min_cwnd=min_cwnd, slow_start=slow_start)


class Nv(Variant):
    """TCP-NV (Brakmo 2010; Linux's tcp_nv.c).

    Args: Linux's ``nv_*`` module parameters without the prefix, with
        Linux's defaults (docs/variants.md): pad (10), pad_buffer (2),
        reset_period (5 s), min_cwnd (2), cong_dec_mult (38, in 128ths),
        ssthresh_factor (8), rtt_factor (128), loss_dec_factor (819, in
        1024ths), cwnd_growth_rate_neg (8), cwnd_growth_rate_pos (0),
        dec_eval_min_calls (60), inc_eval_min_calls (20),
        ssthresh_eval_min_calls (30), stop_rtt_cnt (10), rtt_min_cnt (2);
        and base_rtt: the path's base RTT in microseconds, as a BPF program
        supplies it to Linux's NV (default 0: none). It bounds the RTT that
        enters NV's minimum, so that a standing queue cannot raise it.
    """

    name = "nv"

    def __init__(self, *, pad: int | None = None, pad_buffer: int | None = None,
                 reset_period: int | None = None, min_cwnd: int | None = None,
                 cong_dec_mult: int | None = None, ssthresh_factor: int | None = None,
                 rtt_factor: int | None = None, loss_dec_factor: int | None = None,
                 cwnd_growth_rate_neg: int | None = None, cwnd_growth_rate_pos: int | None = None,
                 dec_eval_min_calls: int | None = None, inc_eval_min_calls: int | None = None,
                 ssthresh_eval_min_calls: int | None = None, stop_rtt_cnt: int | None = None,
                 rtt_min_cnt: int | None = None, base_rtt: int | None = None) -> None:
        super().__init__(pad=pad, pad_buffer=pad_buffer, reset_period=reset_period,
                         min_cwnd=min_cwnd, cong_dec_mult=cong_dec_mult,
                         ssthresh_factor=ssthresh_factor, rtt_factor=rtt_factor,
                         loss_dec_factor=loss_dec_factor,
                         cwnd_growth_rate_neg=cwnd_growth_rate_neg,
                         cwnd_growth_rate_pos=cwnd_growth_rate_pos,
                         dec_eval_min_calls=dec_eval_min_calls,
                         inc_eval_min_calls=inc_eval_min_calls,
                         ssthresh_eval_min_calls=ssthresh_eval_min_calls,
                         stop_rtt_cnt=stop_rtt_cnt, rtt_min_cnt=rtt_min_cnt,
                         base_rtt=base_rtt)


class Cdg(Variant):
    """CAIA Delay-Gradient (Hayes & Armitage 2011; Linux's tcp_cdg.c).

    Args:
        window: rounds in the gradient's moving average (8); backoff_beta:
            kept on a backoff, in 1024ths (724); backoff_factor: G (42);
            hystart_detect: 1 ACK train, 2 delay, 3 both; use_ineff,
            use_shadow, use_tolerance: Linux's switches.
    """

    name = "cdg"

    def __init__(self, *, window: int | None = None, backoff_beta: int | None = None,
                 backoff_factor: int | None = None, hystart_detect: int | None = None,
                 use_ineff: int | None = None, use_shadow: bool | None = None,
                 use_tolerance: bool | None = None) -> None:
        super().__init__(window=window, backoff_beta=backoff_beta,
                         backoff_factor=backoff_factor, hystart_detect=hystart_detect,
                         use_ineff=use_ineff, use_shadow=use_shadow,
                         use_tolerance=use_tolerance)


LINUX_VARIANTS = ["Veno", "HighSpeed", "Scalable", "Bic", "Hybla", "Illinois", "Htcp", "Yeah",
                  "Lp", "Ledbat", "Nv", "Cdg"]
