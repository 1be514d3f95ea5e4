# The ns-2.35 side of `tcplab validate`: bulk flows on the Westwood path or
# on a dumbbell, with ns-2's own agents or TCP-Linux.
#
#     ns ns2_run.tcl key=value ...
#
# topo=westwood: source -(10 Mb/s, 45 ms)- router -(2 Mb/s, 0.01 ms)- sink.
# topo=dumbbell: flows senders -(access, 1 ms)- r0 -(rate, delay)- r1
#   -(access, 1 ms)- receivers, flow i starting at i/flows + i * stagger s
#   (access 100Mb and stagger 0 by default).
# The bottleneck's DropTail queue holds limit packets; per sets uniform
# packet errors on the bottleneck, on reception. agent: newreno, reno,
# sack (Sack1), vegas, or linux:NAME (Agent/TCP/Linux running Linux
# 2.6.22's NAME module, with timestamps and SACK). acks: every or delack
# (DelAck sinks, interval_ 200 ms). size: packetSize_ (payload bytes).
# window, winit, minrto, tick, singledup: Agent/TCP's window_, windowInit_,
# minrto_, tcpTick_ and singledup_.
#
# Prints one JSON line with, per flow: ack_ (highest cumulative ACK, in
# packets from 0) at the end and at three quarters of the run (a reference
# that stalls is reported, not compared), ncwndcuts_ (window reductions),
# the time-average cwnd_ (sampled every 10 ms), data packets, retransmitted
# packets and timeouts; and the bottleneck queue's drops. trace=FILE also
# writes ns-2's packet trace (trace-all) there.
array set opt {topo westwood agent newreno acks delack per 0 seed 1 duration 60
    window 10000 winit 10 minrto 0.2 tick 0.001 singledup 1 size 360 flows 1
    rate 10Mb delay 48ms limit 100 access 100Mb trace {} stagger 0}
foreach kv $argv {
    set i [string first = $kv]
    set opt([string range $kv 0 [expr {$i - 1}]]) [string range $kv [expr {$i + 1}] end]
}
set agent $opt(agent)
set acks $opt(acks)
set duration $opt(duration)

Agent/TCP set packetSize_ $opt(size)
# Agent/TCP/Vegas's output() does not add the 40-B header Agent/TCP's does.
Agent/TCP/Vegas set packetSize_ [expr {$opt(size) + 40}]
Agent/TCP set window_ $opt(window)
Agent/TCP set windowInit_ $opt(winit)
Agent/TCP set minrto_ $opt(minrto)
Agent/TCP set tcpTick_ $opt(tick)
Agent/TCP set singledup_ $opt(singledup)
Agent/TCPSink/DelAck set interval_ 0.2
Agent/TCPSink/Sack1/DelAck set interval_ 0.2
Queue set limit_ $opt(limit)
global defaultRNG
$defaultRNG seed $opt(seed)
set ns [new Simulator]
if {$opt(trace) != ""} { $ns trace-all [open $opt(trace) w] }

proc flow {a b t} {
    global ns agent acks
    set sack 0
    if {[string match linux:* $agent]} {
        set tcp [new Agent/TCP/Linux]
        $tcp set timestamps_ true
        $tcp select_ca [string range $agent 6 end]
        set sack 1
    } else {
        switch $agent {
            newreno { set tcp [new Agent/TCP/Newreno] }
            reno { set tcp [new Agent/TCP/Reno] }
            vegas { set tcp [new Agent/TCP/Vegas] }
            sack { set tcp [new Agent/TCP/Sack1]; set sack 1 }
            default { puts stderr "unknown agent $agent"; exit 2 }
        }
    }
    if {$sack} {
        if {$acks == "delack"} { set sink [new Agent/TCPSink/Sack1/DelAck] } else { set sink [new Agent/TCPSink/Sack1] }
        if {[string match linux:* $agent]} { $sink set ts_echo_rfc1323_ true }
    } else {
        if {$acks == "delack"} { set sink [new Agent/TCPSink/DelAck] } else { set sink [new Agent/TCPSink] }
    }
    $ns attach-agent $a $tcp
    $ns attach-agent $b $sink
    $ns connect $tcp $sink
    set ftp [new Application/FTP]
    $ftp attach-agent $tcp
    $ns at $t "$ftp start"
    return $tcp
}

proc bottleneck {x y rate delay} {
    global ns opt qmon
    $ns duplex-link $x $y $rate $delay DropTail
    set qmon [$ns monitor-queue $x $y ""]
    if {$opt(per) > 0} {
        set em [new ErrorModel]
        $em unit pkt
        $em set rate_ $opt(per)
        $em ranvar [new RandomVariable/Uniform]
        $em drop-target [new Agent/Null]
        $ns link-lossmodel $em $x $y
    }
}

set tcps {}
if {$opt(topo) == "westwood"} {
    set a [$ns node]
    set r [$ns node]
    set b [$ns node]
    $ns duplex-link $a $r 10Mb 45ms DropTail
    bottleneck $r $b 2Mb 0.01ms
    lappend tcps [flow $a $b 0.0]
} else {
    set n $opt(flows)
    set r0 [$ns node]
    set r1 [$ns node]
    bottleneck $r0 $r1 $opt(rate) $opt(delay)
    for {set i 0} {$i < $n} {incr i} {
        set s [$ns node]
        set d [$ns node]
        $ns duplex-link $s $r0 $opt(access) 1ms DropTail
        $ns duplex-link $r1 $d $opt(access) 1ms DropTail
        lappend tcps [flow $s $d [expr {double($i) / $n + $i * $opt(stagger)}]]
    }
}

# The time-average window: cwnd_ sampled every 10 ms.
set samples 0
foreach tcp $tcps { set cwsum($tcp) 0.0 }
proc sample {} {
    global ns tcps cwsum samples
    incr samples
    foreach tcp $tcps { set cwsum($tcp) [expr {$cwsum($tcp) + [$tcp set cwnd_]}] }
    $ns at [expr {[$ns now] + 0.01}] "sample"
}
$ns at 0.0 "sample"

proc three_quarters {} {
    global tcps acked34
    foreach tcp $tcps { set acked34($tcp) [$tcp set ack_] }
}
$ns at [expr {0.75 * $duration}] "three_quarters"

proc finish {} {
    global tcps opt qmon cwsum samples acked34
    set rows {}
    foreach tcp $tcps {
        lappend rows "{\"acked\": [$tcp set ack_], \"acked_3q\": $acked34($tcp), \"cuts\": [$tcp set ncwndcuts_], \"cwnd_mean\": [expr {$cwsum($tcp) / max($samples, 1)}], \"cwnd_end\": [$tcp set cwnd_], \"data\": [$tcp set ndatapack_], \"retransmitted\": [$tcp set nrexmitpack_], \"timeouts\": [$tcp set nrexmit_]}"
    }
    puts "{\"flows\": \[[join $rows {, }]\], \"queue_drops\": [$qmon set pdrops_]}"
    exit 0
}
$ns at $duration "finish"
$ns run
