//! Hand-written traces, in tracefs's own form, for each way a program
//! reaches its file.

use super::*;

const F: TraceInode = TraceInode {
    major: 254,
    minor: 0,
    ino: 0xabc,
};

/// Trace text from `TID EVENT` lines, one microsecond apart.
fn trace(lines: &[&str]) -> String {
    lines
        .iter()
        .enumerate()
        .map(|(i, l)| {
            let (tid, ev) = l.split_once(' ').unwrap();
            format!(
                "            prog-{tid}    [000] .....   100.{:06}: {ev}\n",
                i + 1
            )
        })
        .collect()
}

fn follow(lines: &[&str]) -> FromTrace {
    let files = [TracedFile {
        inode: F,
        size: 64 << 20,
    }];
    from_trace_text(&trace(lines), &files, 12).unwrap()
}

fn accesses(r: &FromTrace) -> Vec<Access> {
    r.items
        .iter()
        .filter_map(|i| match i {
            Item::Access { access, .. } => Some(*access),
            _ => None,
        })
        .collect()
}

const SYNC_RA: &str = "page_cache_sync_ra: dev=254:0 ino=abc index=2560 req_count=256 order=0 size=0 async_size=0 ra_pages=2048 mmap_miss=0 prev_pos=-1";

#[test]
fn dd_reads_through_fd_0_after_dup2() {
    let r = follow(&[
        "10 sys_openat(dfd: 0xffffff9c, filename: 0x7ffc0ac7dac4, flags: 0, mode: 0)",
        "10 sys_openat -> 0x3",
        "10 sys_dup2(oldfd: 3, newfd: 0)",
        "10 sys_dup2 -> 0x0",
        "10 sys_close(fd: 3)",
        "10 sys_close -> 0x0",
        "10 sys_lseek(fd: 0, offset: 0xa00000, whence: 1)",
        "10 sys_lseek -> 0xa00000",
        "10 sys_read(fd: 0, buf: 0x7f2bbe255000, count: 0x100000)",
        &format!("10 {SYNC_RA}"),
        "10 mm_filemap_add_to_page_cache: dev 254:0 ino abc pfn=0x228710 ofs=10485760 order=0",
        "10 mm_filemap_get_pages: dev=254:0 ino=abc ofs=10485760-11534335",
        "10 sys_read -> 0x100000",
        "10 sys_read(fd: 0, buf: 0x7f2bbe255000, count: 0x100000)",
        "10 mm_filemap_get_pages: dev=254:0 ino=abc ofs=11534336-12582911",
        "10 sys_read -> 0x100000",
        // Another file's read is not followed.
        "10 sys_openat(dfd: 0xffffff9c, filename: 0x1, flags: 0x80000, mode: 0)",
        "10 sys_openat -> 0x4",
        "10 sys_read(fd: 4, buf: 0x1, count: 0x1000)",
        "10 mm_filemap_get_pages: dev=254:0 ino=def ofs=0-4095",
        "10 sys_read -> 0x1000",
    ]);
    assert_eq!(
        accesses(&r),
        [
            Access::Open { ofd: 0 },
            Access::ReadAt {
                ofd: 0,
                offset: 10 << 20,
                len: 1 << 20
            },
            Access::ReadAt {
                ofd: 0,
                offset: 11 << 20,
                len: 1 << 20
            },
        ]
    );
    // The read comes before the events it caused.
    assert!(matches!(r.items[1], Item::Access { .. }));
    assert!(matches!(
        r.items[2],
        Item::Event {
            tp: Tracepoint::SyncRa { .. },
            ..
        }
    ));
    assert!(r.disturbed.is_empty() && r.notes.is_empty(), "{r:?}");
}

#[test]
fn a_forked_child_gets_the_mappings_and_its_own_faults() {
    let r = follow(&[
        "10 sys_openat(dfd: 0xffffff9c, filename: 0x1, flags: 0x80000, mode: 0)",
        "10 sys_openat -> 0x3",
        "10 sys_mmap(addr: 0, len: 0x4000000, prot: 1, flags: 2, fd: 3, off: 0)",
        "10 sys_mmap -> 0x7f0000000000",
        "10 sys_close(fd: 3)",
        "10 sys_close -> 0x0",
        "10 task_newtask: pid=11 comm=prog clone_flags=1200011 oom_score_adj=0",
        // The child faults on the last page; the parent never touches it.
        "11 page_fault_user: address=0x7f0003fff010 ip=0x55 error_code=0x4",
        "11 mm_filemap_fault: dev=254:0 ino=abc ofs=67104768",
        "11 sched_process_exit: comm=prog pid=11 prio=120 group_dead=true",
        "10 sched_process_exit: comm=prog pid=10 prio=120 group_dead=true",
    ]);
    let base = 0x7f0000000u64;
    assert_eq!(
        accesses(&r),
        [
            Access::Open { ofd: 0 },
            Access::Mmap {
                mm: 0,
                vpn: base,
                pages: 16384,
                ofd: 0,
                pgoff: 0,
                exec: false
            },
            Access::Mmap {
                mm: 1,
                vpn: base,
                pages: 16384,
                ofd: 0,
                pgoff: 0,
                exec: false
            },
            Access::Fault {
                mm: 1,
                vpn: base + 16383,
                write: false
            },
            Access::Munmap {
                mm: 1,
                vpn: base,
                pages: 16384
            },
            Access::Munmap {
                mm: 0,
                vpn: base,
                pages: 16384
            },
        ]
    );
}

#[test]
fn mmap_faults_and_madvise() {
    let r = follow(&[
        "10 sys_openat(dfd: 0xffffff9c, filename: 0x1, flags: 0, mode: 0)",
        "10 sys_openat -> 0x5",
        "10 sys_mmap(addr: 0, len: 0x4000000, prot: 1, flags: 1, fd: 5, off: 0)",
        "10 sys_mmap -> 0x7f0000000000",
        "10 sys_madvise(start: 0x7f0000000000, len: 0x4000000, behavior: 0xe)",
        "10 sys_madvise -> 0x0",
        // MADV_COLD (20) leaves the page cache alone: not an access.
        "10 sys_madvise(start: 0x7f0000000000, len: 0x1000, behavior: 0x14)",
        "10 sys_madvise -> 0x0",
        "10 page_fault_user: address=0x7f0000200000 ip=0x55 error_code=0x4",
        "10 mm_filemap_fault: dev=254:0 ino=abc ofs=2097152",
        "10 page_cache_ra_order: dev=254:0 ino=abc index=512 order=9 size=512 async_size=0 ra_pages=2048",
        "10 mm_filemap_add_to_page_cache: dev 254:0 ino abc pfn=0x1 ofs=2097152 order=9",
        // A protection fault (a write to the read-only copy) and a fault
        // outside any mapping of the file are not accesses.
        "10 page_fault_user: address=0x7f0000200000 ip=0x55 error_code=0x7",
        "10 page_fault_user: address=0x7ffc00000000 ip=0x55 error_code=0x6",
        "10 page_fault_user: address=0x7f0000000008 ip=0x55 error_code=0x6",
        "10 mm_filemap_map_pages: dev=254:0 ino=abc ofs=0-65535",
        // munmap of the middle splits the mapping.
        "10 sys_munmap(addr: 0x7f0000001000, len: 0x2000)",
        "10 sys_munmap -> 0x0",
        "10 sys_madvise(start: 0x7f0000000000, len: 0x4000, behavior: 4)",
        "10 sys_madvise -> 0x0",
    ]);
    let b = 0x7f0000000u64;
    assert_eq!(
        accesses(&r),
        [
            Access::Open { ofd: 0 },
            Access::Mmap {
                mm: 0,
                vpn: b,
                pages: 16384,
                ofd: 0,
                pgoff: 0,
                exec: false
            },
            Access::Madvise {
                mm: 0,
                vpn: b,
                pages: 16384,
                advice: Madvice::Hugepage
            },
            Access::Fault {
                mm: 0,
                vpn: b + 512,
                write: false
            },
            Access::Fault {
                mm: 0,
                vpn: b,
                write: true
            },
            Access::Munmap {
                mm: 0,
                vpn: b + 1,
                pages: 2
            },
            Access::Madvise {
                mm: 0,
                vpn: b,
                pages: 1,
                advice: Madvice::DontNeed
            },
            Access::Madvise {
                mm: 0,
                vpn: b + 3,
                pages: 1,
                advice: Madvice::DontNeed
            },
        ]
    );
}

#[test]
fn readv_at_eof_takes_its_length_from_get_pages() {
    let r = follow(&[
        "10 sys_openat(dfd: 0xffffff9c, filename: 0x1, flags: 0, mode: 0)",
        "10 sys_openat -> 0x3",
        "10 sys_lseek(fd: 3, offset: 0x3ff0000, whence: 0)",
        "10 sys_lseek -> 0x3ff0000",
        // 1 MiB asked for, 64 KiB left in the file.
        "10 sys_readv(fd: 3, vec: 0x7ffc, vlen: 2)",
        "10 page_cache_sync_ra: dev=254:0 ino=abc index=16368 req_count=256 order=0 size=0 async_size=0 ra_pages=2048 mmap_miss=0 prev_pos=-1",
        "10 mm_filemap_get_pages: dev=254:0 ino=abc ofs=67043328-68091903",
        "10 sys_readv -> 0x10000",
        "10 sys_readv(fd: 3, vec: 0x7ffc, vlen: 2)",
        "10 sys_readv -> 0x0",
        // preadv2 at -1 reads at the position.
        "10 sys_lseek(fd: 3, offset: 0, whence: 0)",
        "10 sys_lseek -> 0x0",
        "10 sys_preadv2(fd: 3, vec: 0x7ffc, vlen: 1, pos_l: 0xffffffffffffffff, pos_h: 0, flags: 0)",
        "10 mm_filemap_get_pages: dev=254:0 ino=abc ofs=0-4095",
        "10 sys_preadv2 -> 0x1000",
        "10 sys_pread64(fd: 3, buf: 0x1, count: 0x1000, pos: 0x5000)",
        "10 sys_pread64 -> 0x1000",
        "10 sys_read(fd: 3, buf: 0x1, count: 0x1000)",
        "10 sys_read -> 0x1000",
    ]);
    assert_eq!(
        accesses(&r),
        [
            Access::Open { ofd: 0 },
            Access::ReadAt {
                ofd: 0,
                offset: 0x3ff0000,
                len: 1 << 20
            },
            Access::ReadAt {
                ofd: 0,
                offset: 64 << 20,
                len: 0
            },
            Access::ReadAt {
                ofd: 0,
                offset: 0,
                len: 4096
            },
            Access::ReadAt {
                ofd: 0,
                offset: 0x5000,
                len: 4096
            },
            Access::ReadAt {
                ofd: 0,
                offset: 4096,
                len: 4096
            },
        ]
    );
}

#[test]
fn threads_share_fds_and_exec_closes_cloexec_ones() {
    let r = follow(&[
        "10 sys_openat(dfd: 0xffffff9c, filename: 0x1, flags: 0x80000, mode: 0)",
        "10 sys_openat -> 0x3",
        "10 sys_openat(dfd: 0xffffff9c, filename: 0x1, flags: 0, mode: 0)",
        "10 sys_openat -> 0x4",
        "10 task_newtask: pid=12 comm=prog clone_flags=3d0f00 oom_score_adj=0",
        "12 sys_pread64(fd: 3, buf: 0x1, count: 0x1000, pos: 0)",
        "12 mm_filemap_get_pages: dev=254:0 ino=abc ofs=0-4095",
        "12 sys_pread64 -> 0x1000",
        "12 sched_process_exit: comm=prog pid=12 prio=120 group_dead=false",
        "10 sched_process_exec: filename=/bin/x pid=10 old_pid=10",
        // fd 3 was close-on-exec and is gone: this read is of a new fd 3.
        "10 sys_read(fd: 3, buf: 0x1, count: 0x1000)",
        "10 sys_read -> 0x1000",
        "10 sys_read(fd: 4, buf: 0x1, count: 0x1000)",
        "10 mm_filemap_get_pages: dev=254:0 ino=abc ofs=0-4095",
        "10 sys_read -> 0x1000",
    ]);
    assert_eq!(
        accesses(&r),
        [
            Access::Open { ofd: 0 },
            Access::Open { ofd: 1 },
            Access::ReadAt {
                ofd: 0,
                offset: 0,
                len: 4096
            },
            Access::ReadAt {
                ofd: 1,
                offset: 0,
                len: 4096
            },
        ]
    );
}

#[test]
fn copy_file_range_and_fadvise() {
    let r = follow(&[
        "10 sys_openat(dfd: 0xffffff9c, filename: 0x1, flags: 0, mode: 0)",
        "10 sys_openat -> 0x3",
        "10 sys_openat(dfd: 0xffffff9c, filename: 0x2, flags: 0x241, mode: 0x1a4)",
        "10 sys_openat -> 0x4",
        "10 sys_fadvise64(fd: 3, offset: 0, len: 0, advice: 2)",
        "10 sys_fadvise64 -> 0x0",
        "10 sys_copy_file_range(fd_in: 3, off_in: 0, fd_out: 4, off_out: 0, len: 0x40000000, flags: 0)",
        "10 page_cache_sync_ra: dev=254:0 ino=abc index=0 req_count=16 order=0 size=0 async_size=0 ra_pages=4096 mmap_miss=0 prev_pos=-1",
        "10 mm_filemap_get_pages: dev=254:0 ino=abc ofs=0-65535",
        // The destination's page cache is another inode.
        "10 mm_filemap_add_to_page_cache: dev 254:0 ino 99 pfn=0x1 ofs=0 order=0",
        "10 sys_copy_file_range -> 0x4000000",
        "10 sys_copy_file_range(fd_in: 3, off_in: 0, fd_out: 4, off_out: 0, len: 0x40000000, flags: 0)",
        "10 sys_copy_file_range -> 0x0",
        // O_DIRECT reads do not go through the page cache.
        "10 sys_openat(dfd: 0xffffff9c, filename: 0x1, flags: 0x4000, mode: 0)",
        "10 sys_openat -> 0x5",
        "10 sys_fcntl(fd: 5, cmd: 0, arg: 0)",
        "10 sys_fcntl -> 0x6",
        "10 sys_fadvise64(fd: 6, offset: 0, len: 0, advice: 4)",
        "10 mm_filemap_delete_from_page_cache: dev 254:0 ino abc pfn=0x1 ofs=0 order=0",
        "10 sys_fadvise64 -> 0x0",
        "10 sys_read(fd: 5, buf: 0x1, count: 0x1000)",
        "10 sys_read -> 0x1000",
    ]);
    assert_eq!(
        accesses(&r),
        [
            Access::Open { ofd: 0 },
            Access::Fadvise {
                ofd: 0,
                offset: 0,
                len: 0,
                advice: Fadvice::Sequential
            },
            Access::SpliceRead {
                ofd: 0,
                offset: 0,
                len: 1 << 30
            },
            Access::SpliceRead {
                ofd: 0,
                offset: 64 << 20,
                len: 1 << 30
            },
            Access::Open { ofd: 1 },
            Access::Fadvise {
                ofd: 1,
                offset: 0,
                len: 0,
                advice: Fadvice::DontNeed
            },
        ]
    );
    // The program's own DONTNEED is not a disturbance.
    assert!(r.disturbed.is_empty(), "{:?}", r.disturbed);
}

#[test]
fn a_delete_after_the_first_add_is_a_disturbance() {
    let r = follow(&[
        "10 sys_openat(dfd: 0xffffff9c, filename: 0x1, flags: 0, mode: 0)",
        "10 sys_openat -> 0x3",
        "10 sys_read(fd: 3, buf: 0x1, count: 0x1000)",
        "10 mm_filemap_add_to_page_cache: dev 254:0 ino abc pfn=0x1 ofs=0 order=0",
        "10 mm_filemap_get_pages: dev=254:0 ino=abc ofs=0-4095",
        "10 sys_read -> 0x1000",
        "10 mm_filemap_delete_from_page_cache: dev 254:0 ino abc pfn=0x1 ofs=0 order=0",
    ]);
    assert_eq!(r.disturbed.len(), 1);
    assert!(
        r.disturbed[0].starts_with("at 100.000007: prog-10 deleted page 0 of file 0"),
        "{}",
        r.disturbed[0]
    );
    // A page-cache add by a task outside the program disturbs too.
    let files = [TracedFile {
        inode: F,
        size: 4096,
    }];
    let mut recs = trace_records(
        &trace(&["99 mm_filemap_add_to_page_cache: dev 254:0 ino abc pfn=0x1 ofs=0 order=0"]),
        12,
    )
    .unwrap();
    recs[0].outside = true;
    let r = from_trace(&recs, &files, 12).unwrap();
    assert_eq!(r.disturbed.len(), 1, "{r:?}");
    assert_eq!(r.items.len(), 1);
}

#[test]
fn mremap_of_the_file_and_lost_events_are_errors() {
    let files = [TracedFile {
        inode: F,
        size: 64 << 20,
    }];
    let text = trace(&[
        "10 sys_openat(dfd: 0xffffff9c, filename: 0x1, flags: 0, mode: 0)",
        "10 sys_openat -> 0x3",
        "10 sys_mmap(addr: 0, len: 0x2000, prot: 1, flags: 2, fd: 3, off: 0)",
        "10 sys_mmap -> 0x7f0000000000",
        "10 sys_mremap(addr: 0x7f0000000000, old_len: 0x2000, new_len: 0x4000, flags: 1, new_addr: 0)",
        "10 sys_mremap -> 0x7f1000000000",
        "10 page_fault_user: address=0x7f0000000000 ip=0x55 error_code=0x4",
        "10 sys_read(fd: 3, buf: 0x1, count: 0x1000)",
        "10 mm_filemap_get_pages: dev=254:0 ino=abc ofs=0-4095",
        "10 sys_read -> 0x1000",
    ]);
    let e = from_trace_text(&text, &files, 12).unwrap_err().to_string();
    assert_eq!(
        e,
        "line 6: mremap: the program moved a mapping of file 0 with mremap, which a recording cannot follow"
    );
    let e = from_trace_text("# tracer: nop\nCPU:0 [LOST 17 EVENTS]\n", &files, 12)
        .unwrap_err()
        .to_string();
    assert_eq!(
        e,
        "line 2: trace: the ring buffer lost events on CPU 0; record again with a larger buffer"
    );
    let e = from_trace_text(&trace(&["10 sys_read(fd: zz)"]), &files, 12)
        .unwrap_err()
        .to_string();
    assert_eq!(e, "line 1: sys_read: fd: 'zz' is not a number");
}

#[test]
fn two_files_each_count_their_own_opens() {
    let files = [
        TracedFile {
            inode: F,
            size: 64 << 20,
        },
        TracedFile {
            inode: TraceInode { ino: 0xdef, ..F },
            size: 4096,
        },
    ];
    let text = trace(&[
        "10 sys_openat(dfd: 0xffffff9c, filename: 0x1, flags: 0, mode: 0)",
        "10 sys_openat -> 0x3",
        "10 sys_openat(dfd: 0xffffff9c, filename: 0x2, flags: 0, mode: 0)",
        "10 sys_openat -> 0x4",
        "10 sys_read(fd: 4, buf: 0x1, count: 0x1000)",
        "10 mm_filemap_get_pages: dev=254:0 ino=def ofs=0-4095",
        "10 sys_read -> 0x1000",
        "10 sys_read(fd: 3, buf: 0x1, count: 0x1000)",
        "10 mm_filemap_get_pages: dev=254:0 ino=abc ofs=0-4095",
        "10 sys_read -> 0x1000",
    ]);
    let r = from_trace_text(&text, &files, 12).unwrap();
    let by_file: Vec<(u32, Access)> = r
        .items
        .iter()
        .filter_map(|i| match *i {
            Item::Access { file, access } => Some((file, access)),
            _ => None,
        })
        .collect();
    let read = Access::ReadAt {
        ofd: 0,
        offset: 0,
        len: 4096,
    };
    assert_eq!(
        by_file,
        [
            (0, Access::Open { ofd: 0 }),
            (1, Access::Open { ofd: 0 }),
            (1, read),
            (0, read),
        ]
    );
}

#[test]
fn a_dup_of_an_inherited_fd_is_the_same_open_file() {
    // fd 0 came from outside: dup'd to 5, read through both.
    let r = follow(&[
        "10 sys_dup(fildes: 0)",
        "10 sys_dup -> 0x5",
        "10 sys_read(fd: 5, buf: 0x1, count: 0x1000)",
        "10 mm_filemap_get_pages: dev=254:0 ino=abc ofs=0-4095",
        "10 sys_read -> 0x1000",
        "10 sys_read(fd: 0, buf: 0x1, count: 0x1000)",
        "10 sys_read -> 0x1000",
    ]);
    assert_eq!(
        accesses(&r),
        [
            Access::Open { ofd: 0 },
            Access::ReadAt {
                ofd: 0,
                offset: 0,
                len: 4096
            },
            Access::ReadAt {
                ofd: 0,
                offset: 4096,
                len: 4096
            },
        ]
    );
}

#[test]
fn a_protection_fault_that_reaches_filemap_fault_is_an_access() {
    // A write to a private mapping of a PMD-mapped folio: the PMD is
    // split and the page faulted in again through filemap_fault.
    let r = follow(&[
        "10 sys_openat(dfd: 0xffffff9c, filename: 0x1, flags: 0, mode: 0)",
        "10 sys_openat -> 0x3",
        "10 sys_mmap(addr: 0, len: 0x4000000, prot: 3, flags: 2, fd: 3, off: 0)",
        "10 sys_mmap -> 0x7f0000000000",
        "10 page_fault_user: address=0x7f0000000000 ip=0x55 error_code=0x4",
        "10 mm_filemap_fault: dev=254:0 ino=abc ofs=0",
        "10 page_fault_user: address=0x7f0000001000 ip=0x55 error_code=0x7",
        "10 mm_filemap_fault: dev=254:0 ino=abc ofs=4096",
        // A copy-on-write of a page mapped by a PTE never reaches the file.
        "10 page_fault_user: address=0x7f0000002000 ip=0x55 error_code=0x7",
        "10 sys_munmap(addr: 0x7f0000000000, len: 0x4000000)",
        "10 sys_munmap -> 0x0",
    ]);
    let b = 0x7f0000000u64;
    let faults: Vec<Access> = accesses(&r)
        .into_iter()
        .filter(|a| matches!(a, Access::Fault { .. }))
        .collect();
    assert_eq!(
        faults,
        [
            Access::Fault {
                mm: 0,
                vpn: b,
                write: false
            },
            Access::Fault {
                mm: 0,
                vpn: b + 1,
                write: true
            },
        ]
    );
}

#[test]
fn a_forked_copy_keeps_the_advice_of_each_piece() {
    // MADV_HUGEPAGE over the mapping's second half, then a fork: the
    // child's copy is two pieces, the second with the advice.
    let r = follow(&[
        "10 sys_openat(dfd: 0xffffff9c, filename: 0x1, flags: 0x80000, mode: 0)",
        "10 sys_openat -> 0x3",
        "10 sys_mmap(addr: 0, len: 0x4000000, prot: 1, flags: 2, fd: 3, off: 0)",
        "10 sys_mmap -> 0x7f0000000000",
        "10 sys_madvise(start: 0x7f0002000000, len_in: 0x2000000, behavior: 0xe)",
        "10 sys_madvise -> 0x0",
        "10 task_newtask: pid=11 comm=prog clone_flags=1200011 oom_score_adj=0",
        "11 page_fault_user: address=0x7f0003fff010 ip=0x55 error_code=0x4",
        "11 mm_filemap_fault: dev=254:0 ino=abc ofs=67104768",
    ]);
    let base = 0x7f0000000u64;
    let child: Vec<Access> = accesses(&r)
        .into_iter()
        .filter(|a| {
            matches!(
                a,
                Access::Mmap { mm: 1, .. } | Access::Madvise { mm: 1, .. }
            )
        })
        .collect();
    assert_eq!(
        child,
        [
            Access::Mmap {
                mm: 1,
                vpn: base,
                pages: 8192,
                ofd: 0,
                pgoff: 0,
                exec: false
            },
            Access::Mmap {
                mm: 1,
                vpn: base + 8192,
                pages: 8192,
                ofd: 0,
                pgoff: 8192,
                exec: false
            },
            Access::Madvise {
                mm: 1,
                vpn: base + 8192,
                pages: 8192,
                advice: Madvice::Hugepage
            },
        ]
    );
}
