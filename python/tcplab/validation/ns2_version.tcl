# Prints ns-2's version and whether it has TCP-Linux (Agent/TCP/Linux).
set ns [new Simulator]
if {[catch {new Agent/TCP/Linux} agent]} {
    puts "[ns-version] none"
} else {
    puts "[ns-version] tcp-linux"
}
exit 0
