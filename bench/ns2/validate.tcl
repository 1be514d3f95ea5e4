# ns-2.35 side of bench/validate_ns2.py: bulk flows on the Westwood path or
# on a dumbbell.
#
# westwood: source -(10 Mb/s, 45 ms)- router -(2 Mb/s, 0.01 ms)- sink, one
#   flow, 400-B IP packets (packetSize_ 360 plus ns-2's 40-B header).
# dumbbell:N: N senders -(1 Gb/s, 1 ms)- r0 -(100 Mb/s, 10 ms)- r1 -(1 Gb/s,
#   1 ms)- N receivers, 1488-B IP packets (packetSize_ 1448), flow i from
#   i/N s.
# DropTail queues of 100 packets; uniform packet errors on the bottleneck,
# on reception (ErrorModel with a uniform random variable).
#
#     ns validate.tcl TOPO AGENT ACKS PER SEED DURATION WINDOW WINDOWINIT MINRTO TICK SINGLEDUP
#
# AGENT: newreno, reno, sack (Sack1), vegas, or linux:NAME (Agent/TCP/Linux
# running Linux 2.6.22's NAME module, with timestamps). ACKS: every (an ACK
# per segment) or delack (every 2 segments or interval_ 200 ms). The other
# arguments set Agent/TCP's window_, windowInit_, minrto_, tcpTick_ and
# singledup_ (limited transmit). Prints one JSON line: per-flow acked
# packets, and totals of data packets, retransmissions and timeouts, and the
# bottleneck queue's drops.
lassign $argv topo agent acks per seed duration window winit minrto tick singledup

if {$topo == "westwood"} { set size 360 } else { set size 1448 }
Agent/TCP set packetSize_ $size
# Agent/TCP/Vegas's output() does not add the 40-B TCP/IP header that
# Agent/TCP's does: its packets would be 40 B shorter than every other
# agent's (and tcplab's) for the same payload.
Agent/TCP/Vegas set packetSize_ [expr {$size + 40}]
Agent/TCP set window_ $window
Agent/TCP set windowInit_ $winit
Agent/TCP set minrto_ $minrto
Agent/TCP set tcpTick_ $tick
Agent/TCP set singledup_ $singledup
Agent/TCPSink/DelAck set interval_ 0.2
Agent/TCPSink/Sack1/DelAck set interval_ 0.2
Queue set limit_ 100
global defaultRNG
$defaultRNG seed $seed
set ns [new Simulator]

# One bulk flow from node a to node b, starting at time t.
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

# The bottleneck from x to y, with its queue monitor and error model.
proc bottleneck {x y rate delay} {
    global ns per qmon
    $ns duplex-link $x $y $rate $delay DropTail
    set qmon [$ns monitor-queue $x $y ""]
    if {$per > 0} {
        set em [new ErrorModel]
        $em unit pkt
        $em set rate_ $per
        $em ranvar [new RandomVariable/Uniform]
        $em drop-target [new Agent/Null]
        $ns link-lossmodel $em $x $y
    }
}

set tcps {}
if {$topo == "westwood"} {
    set a [$ns node]
    set r [$ns node]
    set b [$ns node]
    $ns duplex-link $a $r 10Mb 45ms DropTail
    bottleneck $r $b 2Mb 0.01ms
    lappend tcps [flow $a $b 0.0]
} else {
    set n [lindex [split $topo :] 1]
    set r0 [$ns node]
    set r1 [$ns node]
    bottleneck $r0 $r1 100Mb 10ms
    for {set i 0} {$i < $n} {incr i} {
        set s [$ns node]
        set d [$ns node]
        $ns duplex-link $s $r0 1Gb 1ms DropTail
        $ns duplex-link $r1 $d 1Gb 1ms DropTail
        lappend tcps [flow $s $d [expr {double($i) / $n}]]
    }
}

proc finish {} {
    global tcps agent acks per seed duration qmon
    set acked {}
    set data 0
    set retx 0
    set timeouts 0
    foreach tcp $tcps {
        lappend acked [$tcp set ack_]
        incr data [$tcp set ndatapack_]
        incr retx [$tcp set nrexmitpack_]
        incr timeouts [$tcp set nrexmit_]
    }
    puts "{\"agent\": \"$agent\", \"acks\": \"$acks\", \"per\": $per, \"seed\": $seed, \"duration\": $duration, \"acked_packets\": \[[join $acked {, }]\], \"data_packets\": $data, \"retransmitted\": $retx, \"timeouts\": $timeouts, \"queue_drops\": [$qmon set pdrops_]}"
    exit 0
}
$ns at $duration "finish"
$ns run
