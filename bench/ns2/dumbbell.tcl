# ns-2.35 side of the speed benchmark (bench/peers.py): the dumbbell.
#
# N senders -(1 Gb/s, 1 ms)- R0 -(100 Mb/s, 10 ms)- R1 -(1 Gb/s, 1 ms)- N
# receivers; Agent/TCP/Newreno to Agent/TCPSink/DelAck, FTP (bulk), flow i
# starting at i/N s; DropTail queues of 100 packets; 1448-B segments
# (packetSize_; ns-2 adds a 40-B TCP/IP header); window_ 724 packets
# (1 MiB / 1448, so ns-2's default of 20 does not cap the flow); initial
# window 10; delayed ACKs every 2 segments or 200 ms; RTO at least 1 s with a
# 1-ms clock. No trace files. Prints one JSON line. With "sack" as third
# argument: Agent/TCP/Sack1 to Agent/TCPSink/Sack1/DelAck.
#
#     ns dumbbell.tcl N DURATION [sack]
set n [lindex $argv 0]
set duration [lindex $argv 1]
set sack [expr {[llength $argv] > 2 && [lindex $argv 2] == "sack"}]
Agent/TCPSink/Sack1/DelAck set interval_ 0.2

Agent/TCP set packetSize_ 1448
Agent/TCP set window_ 724
Agent/TCP set windowInit_ 10
Agent/TCP set minrto_ 1.0
Agent/TCP set tcpTick_ 0.001
Agent/TCPSink/DelAck set interval_ 0.2
Queue set limit_ 100

set ns [new Simulator]
set r0 [$ns node]
set r1 [$ns node]
$ns duplex-link $r0 $r1 100Mb 10ms DropTail
for {set i 0} {$i < $n} {incr i} {
    set s($i) [$ns node]
    set d($i) [$ns node]
    $ns duplex-link $s($i) $r0 1Gb 1ms DropTail
    $ns duplex-link $r1 $d($i) 1Gb 1ms DropTail
    if {$sack} {
        set tcp($i) [new Agent/TCP/Sack1]
        set sink($i) [new Agent/TCPSink/Sack1/DelAck]
    } else {
        set tcp($i) [new Agent/TCP/Newreno]
        set sink($i) [new Agent/TCPSink/DelAck]
    }
    $ns attach-agent $s($i) $tcp($i)
    $ns attach-agent $d($i) $sink($i)
    $ns connect $tcp($i) $sink($i)
    set ftp($i) [new Application/FTP]
    $ftp($i) attach-agent $tcp($i)
    $ns at [expr {double($i) / $n}] "$ftp($i) start"
}

proc finish {} {
    global n tcp duration
    set acked {}
    set sent 0
    for {set i 0} {$i < $n} {incr i} {
        # ack_ is the highest cumulative ACK, in packets (sequence numbers start at 0).
        lappend acked [expr {([$tcp($i) set ack_] + 1) * 1448}]
        incr sent [$tcp($i) set ndatapack_]
    }
    puts "{\"sim\": \"ns-2\", \"flows\": $n, \"duration\": $duration, \"data_packets_sent\": $sent, \"rx_bytes\": \[[join $acked {, }]\]}"
    exit 0
}
$ns at $duration "finish"
$ns run
