# ns-2.35 side of bench/studies_ns2.py: two published-study scenarios run at
# ns-2's own defaults (window_ 20, windowInit_ 2, packetSize_ 1000 plus the
# 40-B TCP/IP header, an ACK per packet from Agent/TCPSink, tcpTick_ 10 ms,
# minrto_ 0.2 s, DropTail limit_ 50 on both directions of every link), as
# tcplab's presets describe them.
#
#     ns studies.tcl dumbbell-udp VARIANT LEFT RIGHT UDP_KBPS DURATION [TRACE [SET ...]]
#     ns studies.tcl reverse-traffic VARIANT DURATION [TRACE [SET ...]]
#
# dumbbell-udp (Chavda and Satoniya): tcp_src and udp_src -(access)- r1
#   -(2 Mb/s, 50 ms)- r2 -(access)- tcp_dst and udp_dst, LEFT and RIGHT each
#   "ethernet" (10 Mb/s, 10 ms) or "fast_ethernet" (100 Mb/s, 1 ms). One FTP
#   bulk flow of VARIANT (tahoe: Agent/TCP, reno, newreno, vegas, sack:
#   Agent/TCP/Sack1 to Agent/TCPSink/Sack1) from 0 s, and a CBR source of
#   1000-B packets at UDP_KBPS (Agent/UDP, Application/Traffic/CBR, random_
#   0) from 0 s into an Agent/LossMonitor.
# reverse-traffic (Grieco and Mascolo): src -(100 Mb/s, 1 ms)- r1 -(2 Mb/s,
#   123 ms)- r2 -(100 Mb/s, 1 ms)- dst, one FTP bulk flow of VARIANT src ->
#   dst from 0 s; 10 Agent/TCP/Newreno flows, each from its own host behind
#   r2 to its own host behind r1 (100 Mb/s, 1 ms links), ON during [250, 500]
#   and [750, 1000] s; window_ 10000 on every flow. At an OFF edge the
#   sender's data is cut at what it has sent (`$tcp advance` to maxseq_ + 1):
#   nothing new goes out, what was sent is still retransmitted if lost, as
#   tcplab's OnOff does. (Application/FTP's own stop, `advance 0`, cuts at
#   maxseq_, one packet short: the last packet sent would never be resent.)
#   At an ON edge `$ftp start` (send -1) gives it unlimited data again.
#
# Nothing is random: CBR's random_ and TCP's overhead_ are 0 by default, and
# no error model is used. TRACE, if given and not "-": a trace of both
# directions of the bottleneck's queue (`trace-queue`: + - d r lines) in
# TRACE, and the main TCP's cwnd_ in TRACE.cwnd. Each SET, "Class.var=value"
# (e.g. Queue.limit_=51), sets a class default before anything is built, for
# experiments; the harness passes none by default.
#
# Prints one JSON line. Delivered data is the sink's bytes_ (bytes delivered
# in order, counted whole: divide by wire_size, 1040 B, or 1000 B for Vegas,
# whose output() does not add the 40-B header).
set study [lindex $argv 0]
set variant [lindex $argv 1]
if {$study == "dumbbell-udp"} {
    lassign [lrange $argv 2 end] left right udp_kbps duration trace
    set sets [lrange $argv 7 end]
} elseif {$study == "reverse-traffic"} {
    lassign [lrange $argv 2 end] duration trace
    set sets [lrange $argv 4 end]
} else {
    puts stderr "unknown study $study"
    exit 2
}
if {$trace == ""} { set trace "-" }
foreach s $sets {
    if {![regexp {^([^.=]+)\.([^=]+)=(.*)$} $s -> cls var val]} {
        puts stderr "bad setting $s (Class.var=value)"
        exit 2
    }
    $cls set $var $val
}
set ns [new Simulator]

# A TCP agent of the variant and its sink, attached and connected.
proc tcp_flow {a b variant} {
    global ns
    switch $variant {
        tahoe { set tcp [new Agent/TCP]; set sink [new Agent/TCPSink] }
        reno { set tcp [new Agent/TCP/Reno]; set sink [new Agent/TCPSink] }
        newreno { set tcp [new Agent/TCP/Newreno]; set sink [new Agent/TCPSink] }
        vegas { set tcp [new Agent/TCP/Vegas]; set sink [new Agent/TCPSink] }
        sack { set tcp [new Agent/TCP/Sack1]; set sink [new Agent/TCPSink/Sack1] }
        default { puts stderr "unknown variant $variant"; exit 2 }
    }
    $ns attach-agent $a $tcp
    $ns attach-agent $b $sink
    $ns connect $tcp $sink
    return [list $tcp $sink]
}

# The size on the wire of a data packet of the variant.
proc wire_size {variant tcp} {
    if {$variant == "vegas"} { return [$tcp set packetSize_] }
    return [expr {[$tcp set packetSize_] + [$tcp set tcpip_base_hdr_size_]}]
}

# Monitors (and, with a trace, traces) of both directions of the bottleneck.
proc watch_bottleneck {x y} {
    global ns trace qmon tracefd
    if {$trace != "-"} {
        set tracefd [open $trace w]
        $ns trace-queue $x $y $tracefd
        $ns trace-queue $y $x $tracefd
    }
    set qmon(fwd) [$ns monitor-queue $x $y ""]
    set qmon(rev) [$ns monitor-queue $y $x ""]
}

proc trace_cwnd {tcp} {
    global trace cwndfd
    if {$trace == "-"} { return }
    set cwndfd [open $trace.cwnd w]
    $tcp attach $cwndfd
    $tcp trace cwnd_
}

proc close_traces {} {
    global ns trace tracefd cwndfd
    if {$trace == "-"} { return }
    $ns flush-trace
    close $tracefd
    flush $cwndfd
    close $cwndfd
}

proc tcp_json {tcp sink variant} {
    return "\"wire_size\": [wire_size $variant $tcp], \"ack\": [$tcp set ack_], \"data_packets\": [$tcp set ndatapack_], \"retransmitted\": [$tcp set nrexmitpack_], \"timeouts\": [$tcp set nrexmit_]"
}

proc queue_json {} {
    global qmon
    return "\"bottleneck_drops\": [$qmon(fwd) set pdrops_], \"bottleneck_departures\": [$qmon(fwd) set pdepartures_], \"reverse_drops\": [$qmon(rev) set pdrops_], \"reverse_departures\": [$qmon(rev) set pdepartures_]"
}

if {$study == "dumbbell-udp"} {
    array set access {ethernet {10Mb 10ms} fast_ethernet {100Mb 1ms}}
    foreach side [list $left $right] {
        if {![info exists access($side)]} { puts stderr "unknown access $side"; exit 2 }
    }
    set r1 [$ns node]
    set r2 [$ns node]
    $ns duplex-link $r1 $r2 2Mb 50ms DropTail
    set ts [$ns node]
    set us [$ns node]
    set td [$ns node]
    set ud [$ns node]
    foreach h [list $ts $us] {
        $ns duplex-link $h $r1 [lindex $access($left) 0] [lindex $access($left) 1] DropTail
    }
    foreach h [list $td $ud] {
        $ns duplex-link $r2 $h [lindex $access($right) 0] [lindex $access($right) 1] DropTail
    }
    watch_bottleneck $r1 $r2
    lassign [tcp_flow $ts $td $variant] tcp sink
    set ftp [new Application/FTP]
    $ftp attach-agent $tcp
    trace_cwnd $tcp
    set udp [new Agent/UDP]
    set lm [new Agent/LossMonitor]
    $ns attach-agent $us $udp
    $ns attach-agent $ud $lm
    $ns connect $udp $lm
    set cbr [new Application/Traffic/CBR]
    $cbr attach-agent $udp
    $cbr set packetSize_ 1000
    $cbr set rate_ ${udp_kbps}kb
    $ns at 0.0 "$ftp start"
    $ns at 0.0 "$cbr start"
    proc finish {} {
        global tcp sink lm variant left right udp_kbps duration study
        close_traces
        puts "{\"study\": \"$study\", \"variant\": \"$variant\", \"left\": \"$left\", \"right\": \"$right\", \"udp_kbps\": $udp_kbps, \"duration\": $duration, \"tcp_bytes\": [$sink set bytes_], [tcp_json $tcp $sink $variant], \"udp_packets\": [$lm set npkts_], \"udp_bytes\": [$lm set bytes_], \"udp_lost\": [$lm set nlost_], [queue_json]}"
        exit 0
    }
} else {
    Agent/TCP set window_ 10000
    set src [$ns node]
    set r1 [$ns node]
    set r2 [$ns node]
    set dst [$ns node]
    $ns duplex-link $src $r1 100Mb 1ms DropTail
    $ns duplex-link $r1 $r2 2Mb 123ms DropTail
    $ns duplex-link $r2 $dst 100Mb 1ms DropTail
    watch_bottleneck $r1 $r2
    lassign [tcp_flow $src $dst $variant] tcp sink
    set ftp [new Application/FTP]
    $ftp attach-agent $tcp
    trace_cwnd $tcp
    $ns at 0.0 "$ftp start"
    set rsinks {}
    for {set i 0} {$i < 10} {incr i} {
        set s [$ns node]
        set d [$ns node]
        $ns duplex-link $s $r2 100Mb 1ms DropTail
        $ns duplex-link $r1 $d 100Mb 1ms DropTail
        lassign [tcp_flow $s $d newreno] rtcp rsink
        lappend rsinks $rsink
        set rftp [new Application/FTP]
        $rftp attach-agent $rtcp
        foreach {on off} {250 500 750 1000} {
            $ns at $on "$rftp start"
            $ns at $off "$rtcp advance \[expr {\[$rtcp set maxseq_\] + 1}\]"
        }
    }
    set samples {}
    set acks {}
    proc sample {} {
        global sink tcp samples acks
        lappend samples [$sink set bytes_]
        lappend acks [$tcp set ack_]
    }
    foreach t {250 500 750} {
        if {$t < $duration} { $ns at $t "sample" }
    }
    proc finish {} {
        global tcp sink rsinks variant duration study samples acks
        sample
        close_traces
        set rbytes {}
        foreach s $rsinks { lappend rbytes [$s set bytes_] }
        puts "{\"study\": \"$study\", \"variant\": \"$variant\", \"duration\": $duration, \"tcp_bytes_at\": \[[join $samples {, }]\], \"ack_at\": \[[join $acks {, }]\], [tcp_json $tcp $sink $variant], \"reverse_bytes\": \[[join $rbytes {, }]\], [queue_json]}"
        exit 0
    }
}
$ns at $duration "finish"
$ns run
