//! A bounded load test of `grundy serve` on loopback: CONNECTIONS keep-alive connections,
//! each a thread asking `GET /v1/position/1/{node}` for random nodes, as fast as answers come,
//! for SECONDS. Prints requests per second, the p50 / p99 / max latency and the responses
//! that were not 200 (none, on a healthy server). Only std: the client is simpler than the
//! server, so the server's rate is what is measured.
//!
//! Usage: load ADDR:PORT NODES [CONNECTIONS] [SECONDS]

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::time::{Duration, Instant};

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.len() < 3 {
        eprintln!("usage: load ADDR:PORT NODES [CONNECTIONS] [SECONDS]");
        std::process::exit(2);
    }
    let number = |i: usize, default: u64| {
        args.get(i).map_or(default, |a| a.parse().unwrap_or_else(|_| panic!("{a}: a number")))
    };
    let (address, nodes) = (args[1].clone(), number(2, 0));
    let (connections, seconds) = (number(3, 64), number(4, 10));
    let end = Instant::now() + Duration::from_secs(seconds);
    let started = Instant::now();
    let workers: Vec<_> = (0..connections)
        .map(|k| {
            let address = address.clone();
            std::thread::spawn(move || client(&address, nodes, k + 1, end))
        })
        .collect();
    let (mut latencies, mut failures) = (Vec::new(), 0u64);
    for worker in workers {
        let (l, f) = worker.join().expect("a client thread");
        latencies.extend(l);
        failures += f;
    }
    let elapsed = started.elapsed().as_secs_f64();
    latencies.sort_unstable();
    let at = |q: f64| latencies[((latencies.len() - 1) as f64 * q) as usize] as f64 / 1e3;
    println!(
        "{} requests in {elapsed:.1} s at {connections} connections: {:.0} requests/s, \
         latency p50 {:.3} ms, p99 {:.3} ms, max {:.3} ms; {failures} not 200",
        latencies.len(),
        latencies.len() as f64 / elapsed,
        at(0.5),
        at(0.99),
        at(1.0)
    );
}

/// One connection's requests until `end`: each one's latency in microseconds, and how many
/// were not a 200.
fn client(address: &str, nodes: u64, seed: u64, end: Instant) -> (Vec<u64>, u64) {
    let stream = TcpStream::connect(address).expect("connect");
    stream.set_nodelay(true).expect("nodelay");
    let mut reader = BufReader::new(stream.try_clone().expect("clone"));
    let mut writer = stream;
    let mut state = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    let (mut latencies, mut failures) = (Vec::new(), 0);
    let (mut line, mut body) = (String::new(), Vec::new());
    while Instant::now() < end {
        // xorshift64*: the nodes asked for, spread over the whole graph.
        state ^= state >> 12;
        state ^= state << 25;
        state ^= state >> 27;
        let node = state.wrapping_mul(0x2545_F491_4F6C_DD1D) % nodes.max(1);
        let request = format!("GET /v1/position/1/{node} HTTP/1.1\r\nHost: load\r\n\r\n");
        let sent = Instant::now();
        writer.write_all(request.as_bytes()).expect("send");
        line.clear();
        reader.read_line(&mut line).expect("status line");
        let ok = line.starts_with("HTTP/1.1 200");
        let mut length = 0;
        loop {
            line.clear();
            reader.read_line(&mut line).expect("header");
            if line == "\r\n" {
                break;
            }
            let lower = line.to_ascii_lowercase();
            if let Some(v) = lower.strip_prefix("content-length:") {
                length = v.trim().parse().expect("a length");
            }
        }
        body.resize(length, 0);
        reader.read_exact(&mut body).expect("body");
        latencies.push(sent.elapsed().as_micros() as u64);
        failures += u64::from(!ok);
    }
    (latencies, failures)
}
