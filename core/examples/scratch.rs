use folioscope_core::*;
fn main() {
    let args: Vec<String> = std::env::args().collect();
    let pat = match args[1].as_str() {
        "fwd" => Pattern::Fwd,
        "rev" => Pattern::Rev,
        "stride64" => Pattern::Stride(64),
        "read4096" => Pattern::Read { bs: 4096 },
        "read1m" => Pattern::Read { bs: 1 << 20 },
        _ => panic!(),
    };
    let mad = match args[2].as_str() {
        "normal" => Madvise::Normal,
        "hugepage" => Madvise::Hugepage,
        "sequential" => Madvise::Sequential,
        "random" => Madvise::Random,
        _ => panic!(),
    };
    let gb: u64 = std::env::var("GB")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(2);
    let mut p = Config::defaults(pat, gb << 30).unwrap().parts();
    p.madvise = mad;
    let cfg = Config::new(p).unwrap();
    let t = std::time::Instant::now();
    let mut sim = Simulation::new(cfg);
    if std::env::var("SLOW").is_ok() {
        sim.machine_mut().fast_paths = false;
    }
    sim.run(&mut NoEvents);
    let s = Summary::of(sim.machine());
    println!(
        "{:?} major {} minor {} bytes {} resident {} pmdkb {} mmap_miss {} visits {} ios {}",
        t.elapsed(),
        s.major_faults,
        s.minor_faults,
        s.bytes_read,
        s.resident_pages,
        s.file_pmd_mapped_kb,
        s.mmap_miss,
        s.xa.node_visits,
        s.read_ios
    );
    let f: Vec<_> = s
        .folios
        .iter()
        .map(|r| (r.start, r.order, r.count))
        .collect();
    println!("folios {:?}", &f[..f.len().min(12)]);
    println!("{:?}", s.xa);
}
