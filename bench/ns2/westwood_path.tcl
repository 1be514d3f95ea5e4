# ns-2.35 side of the speed benchmark (bench/peers.py): the Westwood path.
#
# source -(10 Mb/s, 45 ms)- router -(2 Mb/s, 0.01 ms)- sink; DropTail queues
# of 100 packets; 400-B IP packets (packetSize_ 360 plus ns-2's 40-B header);
# one bulk FTP flow of Agent/TCP/Newreno or Agent/TCP/Vegas (alpha/beta 2/4
# as ns-3 and tcplab's ns3 profile) to Agent/TCPSink/DelAck (every 2
# segments or 200 ms); initial window 10; window_ 364 packets (128 KiB);
# uniform packet error rate on the bottleneck, on reception at the sink.
# ns-2 releases have no Westwood+ (its TCP-Linux westwood stalls under
# random loss; see docs/performance.md). Prints one JSON line.
#
#     ns westwood_path.tcl newreno|vegas DURATION PER SEED
set cc [lindex $argv 0]
set duration [lindex $argv 1]
set per [lindex $argv 2]
set seed [lindex $argv 3]

Agent/TCP set packetSize_ 360
Agent/TCP set window_ 364
Agent/TCP set windowInit_ 10
Agent/TCP set minrto_ 1.0
Agent/TCP set tcpTick_ 0.001
Agent/TCP/Vegas set v_alpha_ 2
Agent/TCP/Vegas set v_beta_ 4
Agent/TCPSink/DelAck set interval_ 0.2
Queue set limit_ 100
global defaultRNG
$defaultRNG seed $seed

set ns [new Simulator]
set a [$ns node]
set r [$ns node]
set b [$ns node]
$ns duplex-link $a $r 10Mb 45ms DropTail
$ns duplex-link $r $b 2Mb 0.01ms DropTail
set em [new ErrorModel]
$em unit pkt
$em set rate_ $per
$em ranvar [new RandomVariable/Uniform]
$em drop-target [new Agent/Null]
$ns link-lossmodel $em $r $b

if {$cc == "vegas"} {
    set tcp [new Agent/TCP/Vegas]
} else {
    set tcp [new Agent/TCP/Newreno]
}
set sink [new Agent/TCPSink/DelAck]
$ns attach-agent $a $tcp
$ns attach-agent $b $sink
$ns connect $tcp $sink
set ftp [new Application/FTP]
$ftp attach-agent $tcp
$ns at 0.0 "$ftp start"

proc finish {} {
    global tcp duration cc
    set rx [expr {([$tcp set ack_] + 1) * 360}]
    puts "{\"sim\": \"ns-2\", \"cc\": \"$cc\", \"duration\": $duration, \"data_packets_sent\": [$tcp set ndatapack_], \"rx_bytes\": \[$rx\]}"
    exit 0
}
$ns at $duration "finish"
$ns run
