# ns-2.35 side of bench/validate_ns2.py: one flow on the Westwood path.
#
# source -(10 Mb/s, 45 ms)- router -(2 Mb/s, 0.01 ms)- sink; DropTail queues
# of 100 packets; 400-B IP packets (packetSize_ 360 plus ns-2's 40-B
# header); one bulk FTP flow; uniform packet errors on the bottleneck, on
# reception at the sink (ErrorModel with a uniform random variable).
#
#     ns validate.tcl AGENT ACKS PER SEED DURATION WINDOW WINDOWINIT MINRTO TICK SINGLEDUP
#
# AGENT: newreno, reno, sack (Sack1), vegas, or linux:NAME (Agent/TCP/Linux
# running Linux 2.6.22's NAME module, with timestamps). ACKS: every (an ACK
# per segment) or delack (every 2 segments or interval_ 200 ms). The other
# arguments set Agent/TCP's window_, windowInit_, minrto_, tcpTick_ and
# singledup_ (limited transmit). Prints one JSON line.
lassign $argv agent acks per seed duration window winit minrto tick singledup

Agent/TCP set packetSize_ 360
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
set a [$ns node]
set r [$ns node]
set b [$ns node]
$ns duplex-link $a $r 10Mb 45ms DropTail
$ns duplex-link $r $b 2Mb 0.01ms DropTail
set qmon [$ns monitor-queue $r $b ""]
if {$per > 0} {
    set em [new ErrorModel]
    $em unit pkt
    $em set rate_ $per
    $em ranvar [new RandomVariable/Uniform]
    $em drop-target [new Agent/Null]
    $ns link-lossmodel $em $r $b
}

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
$ns at 0.0 "$ftp start"

proc finish {} {
    global tcp agent acks per seed duration qmon
    puts "{\"agent\": \"$agent\", \"acks\": \"$acks\", \"per\": $per, \"seed\": $seed, \"duration\": $duration, \"acked_packets\": [$tcp set ack_], \"data_packets\": [$tcp set ndatapack_], \"retransmitted\": [$tcp set nrexmitpack_], \"timeouts\": [$tcp set nrexmit_], \"queue_drops\": [$qmon set pdrops_]}"
    exit 0
}
$ns at $duration "finish"
$ns run
