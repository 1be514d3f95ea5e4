// SPDX-License-Identifier: MIT OR Apache-2.0
//! Packet traces in the classic libpcap format, for Wireshark and tshark.
//!
//! One file per captured link direction, nanosecond time stamps (the
//! 0xa1b23c4d magic), LINKTYPE_RAW (101): each record starts with the IPv4
//! header. Headers are real: IPv4 (addresses from the topology), TCP with
//! the sequence and acknowledgement numbers (modulo 2^32, initial sequence
//! numbers 0), flags, window, and every option the simulator models (MSS,
//! window scale, SACK-permitted, timestamps, SACK blocks, with NOP padding
//! exactly as many bytes as the simulated header counts), or UDP; checksums
//! are correct (the payload is zeros, which add nothing to the one's
//! complement sum). Payload bytes are written as zeros up to the snap length.
//!
//! Records are buffered and written in whole-record chunks that never cross a
//! 4 KiB page boundary of the file: Linux checks for a fatal signal only
//! between the pages of a write, so a run killed partway (even by SIGKILL)
//! leaves a file that ends at a record boundary. The one exception is a
//! single record straddling a boundary, written alone: a kill inside that
//! one small write could still cut it.
//!
//! Addresses: node n is 10.x.y.z with x.y.z = n + 1 (so node 0 is 10.0.0.1).
//! Ports: flow f uses source port 10000 + f and destination port 20000 + f
//! (f < 10000).

use std::fs::File;
use std::io::Write;
use std::path::{Path, PathBuf};

use crate::net::packet::{Packet, Proto, IPV4_HEADER, TCP_HEADER, UDP_HEADER};
use crate::net::packet::{ACK, CWR, ECE, FIN, SYN};
use crate::time::SimTime;

/// LINKTYPE_RAW: the packet begins with an IPv4 or IPv6 header.
const LINKTYPE_RAW: u32 = 101;
/// Classic pcap with nanosecond time stamps.
const MAGIC_NS: u32 = 0xa1b2_3c4d;
/// Writes never cross a multiple of this file offset (the page size).
const PAGE: u64 = 4096;

/// What a TCP flow's SYNs carry, for encoding their options.
#[derive(Clone, Copy, Debug, Default)]
pub struct FlowOptions {
    pub mss: u16,
    pub wscale: Option<u8>,
    pub sack: bool,
    pub timestamps: bool,
}

/// The IPv4 address of node `n`.
pub fn node_addr(n: u32) -> [u8; 4] {
    let v = n + 1;
    [10, (v >> 16) as u8, (v >> 8) as u8, v as u8]
}

/// Creates `path` exclusively; if something is there (a file, or a symlink,
/// which is not followed), removes it and tries once more.
pub fn create_new_replacing(path: &Path) -> std::io::Result<File> {
    let open = || {
        std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(path)
    };
    match open() {
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
            let meta = std::fs::symlink_metadata(path)?;
            if meta.is_dir() {
                return Err(std::io::Error::other("a directory is in the way"));
            }
            std::fs::remove_file(path)?;
            open()
        }
        other => other,
    }
}

/// The file name of a link's trace: the link's name with every byte outside
/// `A-Z a-z 0-9 - _ .` written as `%XX` (so two names never give one file),
/// then `-0` (a -> b) or `-1` (b -> a) and `.pcap`.
pub fn file_stem(link: &str) -> String {
    let mut out = String::new();
    for b in link.bytes() {
        if b.is_ascii_alphanumeric() || b"-_.".contains(&b) {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

#[derive(Debug)]
pub struct PcapWriter {
    path: PathBuf,
    file: File,
    buf: Vec<u8>,
    /// Bytes already in the file.
    written: u64,
    snaplen: u32,
    /// The first write error, if any; writing stops after it.
    pub error: Option<String>,
    pub records: u64,
}

impl PcapWriter {
    /// Creates the trace file at `path`, replacing a file already there.
    /// Never writes through a symlink: the file is created exclusively
    /// (`O_EXCL`), and a symlink or file in the way is removed first, so a
    /// link planted in the output directory is replaced, not followed.
    pub fn create(path: &Path, snaplen: u32) -> std::io::Result<Self> {
        let mut file = create_new_replacing(path)?;
        let mut h = Vec::with_capacity(24);
        h.extend_from_slice(&MAGIC_NS.to_le_bytes());
        h.extend_from_slice(&2u16.to_le_bytes());
        h.extend_from_slice(&4u16.to_le_bytes());
        h.extend_from_slice(&0i32.to_le_bytes()); // thiszone
        h.extend_from_slice(&0u32.to_le_bytes()); // sigfigs
        h.extend_from_slice(&snaplen.to_le_bytes());
        h.extend_from_slice(&LINKTYPE_RAW.to_le_bytes());
        file.write_all(&h)?;
        Ok(PcapWriter {
            path: path.to_path_buf(),
            file,
            buf: Vec::with_capacity(PAGE as usize + 256),
            written: 24,
            snaplen,
            error: None,
            records: 0,
        })
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Appends one packet seen at `now`; `flow_src` is the node its flow
    /// starts at (which side's port is which).
    pub fn write(&mut self, now: SimTime, p: &Packet, flow_src: u32, opts: &FlowOptions) {
        if self.error.is_some() {
            return;
        }
        let mut pkt = [0u8; 120];
        let hdr_len = encode(&mut pkt, p, flow_src, opts);
        let orig = p.size as usize;
        let incl = orig.min(self.snaplen as usize);
        let ns = now.as_nanos();
        // Keep every write inside one page: flush before a record that would
        // cross the next boundary; a record that straddles it goes alone.
        let start = self.written + self.buf.len() as u64;
        let size = 16 + incl as u64;
        let boundary = (start / PAGE + 1) * PAGE;
        let straddles = start + size > boundary;
        if straddles {
            self.flush();
        }
        self.buf
            .extend_from_slice(&((ns / 1_000_000_000) as u32).to_le_bytes());
        self.buf
            .extend_from_slice(&((ns % 1_000_000_000) as u32).to_le_bytes());
        self.buf.extend_from_slice(&(incl as u32).to_le_bytes());
        self.buf.extend_from_slice(&(orig as u32).to_le_bytes());
        let from_header = incl.min(hdr_len);
        self.buf.extend_from_slice(&pkt[..from_header]);
        self.buf.resize(self.buf.len() + (incl - from_header), 0); // zero payload
        self.records += 1;
        if straddles || start + size == boundary {
            self.flush();
        }
    }

    /// Writes out the buffered whole records.
    pub fn flush(&mut self) {
        if self.buf.is_empty() || self.error.is_some() {
            return;
        }
        match self.file.write_all(&self.buf) {
            Ok(()) => self.written += self.buf.len() as u64,
            Err(e) => self.error = Some(format!("{}: {e}", self.path.display())),
        }
        self.buf.clear();
    }
}

impl Drop for PcapWriter {
    fn drop(&mut self) {
        self.flush();
    }
}

/// One's complement sum of 16-bit words.
fn sum16(data: &[u8], mut acc: u32) -> u32 {
    let mut chunks = data.chunks_exact(2);
    for c in &mut chunks {
        acc += u16::from_be_bytes([c[0], c[1]]) as u32;
    }
    if let [last] = chunks.remainder() {
        acc += (*last as u32) << 8;
    }
    acc
}

fn fold(mut acc: u32) -> u16 {
    while acc > 0xffff {
        acc = (acc & 0xffff) + (acc >> 16);
    }
    !(acc as u16)
}

/// Writes the IPv4 and transport headers of `p` into `out`; returns their length.
fn encode(out: &mut [u8; 120], p: &Packet, flow_src: u32, opts: &FlowOptions) -> usize {
    let (s, d) = (node_addr(p.src), node_addr(p.dst));
    let proto = match p.proto {
        Proto::Tcp => 6u8,
        Proto::Udp => 17u8,
    };
    // IPv4.
    out[0] = 0x45;
    out[1] = p.ecn as u8; // DSCP 0, the ECN field in the low two bits
    out[2..4].copy_from_slice(&(p.size.min(65535) as u16).to_be_bytes());
    out[4..6].copy_from_slice(&(p.number as u16).to_be_bytes());
    out[6..8].copy_from_slice(&0x4000u16.to_be_bytes()); // DF
    out[8] = 64;
    out[9] = proto;
    out[12..16].copy_from_slice(&s);
    out[16..20].copy_from_slice(&d);
    let ck = fold(sum16(&out[..20], 0));
    out[10..12].copy_from_slice(&ck.to_be_bytes());
    let ip = IPV4_HEADER as usize;
    // Ports: the flow's source side uses 10000 + f, its destination 20000 + f.
    let (sp, dp) = (10_000 + p.flow as u16, 20_000 + p.flow as u16);
    let forward = p.src == flow_src;
    let (sport, dport) = if forward { (sp, dp) } else { (dp, sp) };
    let l4_len = p.size as usize - ip;
    let mut pseudo = 0u32;
    pseudo = sum16(&s, pseudo);
    pseudo = sum16(&d, pseudo);
    pseudo += proto as u32 + l4_len as u32;
    match p.proto {
        Proto::Udp => {
            let u = &mut out[ip..ip + 8];
            u[0..2].copy_from_slice(&sport.to_be_bytes());
            u[2..4].copy_from_slice(&dport.to_be_bytes());
            u[4..6].copy_from_slice(&(l4_len as u16).to_be_bytes());
            let ck = fold(sum16(u, pseudo));
            let ck = if ck == 0 { 0xffff } else { ck };
            out[ip + 6..ip + 8].copy_from_slice(&ck.to_be_bytes());
            ip + UDP_HEADER as usize
        }
        Proto::Tcp => {
            let h = &p.tcp;
            let tcp_len = TCP_HEADER as usize + h.opt_len as usize;
            let t = &mut out[ip..ip + tcp_len];
            t[0..2].copy_from_slice(&sport.to_be_bytes());
            t[2..4].copy_from_slice(&dport.to_be_bytes());
            t[4..8].copy_from_slice(&(h.seq as u32).to_be_bytes());
            let ack = if h.has(ACK) { h.ack as u32 } else { 0 };
            t[8..12].copy_from_slice(&ack.to_be_bytes());
            t[12] = ((tcp_len / 4) as u8) << 4;
            t[13] = h.flags & (SYN | ACK | FIN | ECE | CWR);
            t[14..16].copy_from_slice(&h.wnd.to_be_bytes());
            write_options(&mut t[20..], h, opts);
            let ck = fold(sum16(t, pseudo));
            out[ip + 16..ip + 18].copy_from_slice(&ck.to_be_bytes());
            ip + tcp_len
        }
    }
}

/// Encodes the options of `h` into exactly `h.opt_len` bytes.
fn write_options(o: &mut [u8], h: &crate::net::packet::TcpHeader, opts: &FlowOptions) {
    let n = h.opt_len as usize;
    let mut i = 0;
    let ts = |o: &mut [u8], i: usize| {
        o[i] = 8;
        o[i + 1] = 10;
        // Timestamps in milliseconds of simulated time.
        o[i + 2..i + 6].copy_from_slice(&((h.ts_val / 1_000_000) as u32).to_be_bytes());
        o[i + 6..i + 10].copy_from_slice(&((h.ts_ecr / 1_000_000) as u32).to_be_bytes());
    };
    if h.has(SYN) {
        o[i..i + 4].copy_from_slice(&[2, 4, (opts.mss >> 8) as u8, opts.mss as u8]);
        i += 4;
        if opts.timestamps {
            o[i..i + 2].copy_from_slice(&[4, 2]); // SACK-permitted (NOPs if SACK is off)
            if !opts.sack {
                o[i..i + 2].copy_from_slice(&[1, 1]);
            }
            ts(o, i + 2);
            i += 12;
        } else if opts.sack {
            o[i..i + 4].copy_from_slice(&[1, 1, 4, 2]);
            i += 4;
        }
        if let Some(ws) = opts.wscale {
            o[i..i + 4].copy_from_slice(&[1, 3, 3, ws]);
            i += 4;
        }
    } else {
        if opts.timestamps && i + 12 <= n {
            o[i..i + 2].copy_from_slice(&[1, 1]);
            ts(o, i + 2);
            i += 12;
        }
        let blocks = h.sack_blocks();
        if !blocks.is_empty() && i + 4 + 8 * blocks.len() <= n {
            o[i..i + 4].copy_from_slice(&[1, 1, 5, (2 + 8 * blocks.len()) as u8]);
            i += 4;
            for &(a, b) in blocks {
                o[i..i + 4].copy_from_slice(&(a as u32).to_be_bytes());
                o[i + 4..i + 8].copy_from_slice(&(b as u32).to_be_bytes());
                i += 8;
            }
        }
    }
    // Anything the simulated size counts beyond the encoded options: NOPs.
    for b in o.iter_mut().take(n).skip(i) {
        *b = 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::packet::TcpHeader;

    fn tcp_packet(h: TcpHeader) -> Packet {
        Packet {
            flow: 0,
            src: 0,
            dst: 1,
            size: 40 + h.opt_len as u32 + h.len,
            payload: h.len,
            next_hop: crate::net::route::NO_ROUTE,
            number: 1,
            sent_at: SimTime::ZERO,
            proto: Proto::Tcp,
            ecn: crate::net::packet::Ecn::NotEct,
            tcp: h,
        }
    }

    #[test]
    fn checksums_verify_and_options_fill_their_length() {
        let h = TcpHeader {
            seq: 1,
            ack: 1,
            flags: ACK,
            len: 100,
            wnd: 1000,
            opt_len: 12 + 4 + 16,
            ts_val: 5_000_000,
            ts_ecr: 2_000_000,
            nsack: 2,
            sack: [(201, 301), (401, 501), (0, 0), (0, 0)],
            ..TcpHeader::default()
        };
        let p = tcp_packet(h);
        let opts = FlowOptions {
            mss: 1000,
            wscale: Some(7),
            sack: true,
            timestamps: true,
        };
        let mut out = [0u8; 120];
        let n = encode(&mut out, &p, 0, &opts);
        assert_eq!(n, 20 + 20 + 32);
        // IPv4 header checksum: the sum over the header including it is 0xffff.
        assert_eq!(fold(sum16(&out[..20], 0)), 0);
        // TCP checksum over pseudo-header, header, options and 100 zero bytes.
        let mut pseudo = sum16(&out[12..20], 0) + 6 + (20 + 32 + 100);
        pseudo = sum16(&out[20..n], pseudo);
        assert_eq!(fold(pseudo), 0);
        // Options: NOP NOP TS(8,10) | NOP NOP SACK(5, 18) 2 blocks.
        assert_eq!(&out[40..44], &[1, 1, 8, 10]);
        assert_eq!(u32::from_be_bytes(out[44..48].try_into().unwrap()), 5);
        assert_eq!(&out[52..56], &[1, 1, 5, 18]);
        assert_eq!(u32::from_be_bytes(out[56..60].try_into().unwrap()), 201);
        assert_eq!(node_addr(0), [10, 0, 0, 1]);
        assert_eq!(node_addr(300), [10, 0, 1, 45]);
    }
}
