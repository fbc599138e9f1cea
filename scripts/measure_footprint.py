#!/usr/bin/python3
"""Per-transaction memory footprint of one PostgreSQL backend, via accessed bits.

What it is for: costs.shared_pages_per_transaction in a scenario (the shm_main column at K=1,
the pages of shared memory one transaction touches). It needs a database initialised by
pgbench -i -s 8 (the random ids below are scale 8's) and python3-psycopg2. Run as the postgres
OS user (peer auth; same uid => may write /proc/PID/clear_refs and read /proc/PID/smaps of its
own backend), on loopback only:
    runuser -u postgres -- /usr/bin/python3 scripts/measure_footprint.py [opts]
With huge_pages on, the shared segment is a hugetlb mapping whose accessed bits the kernel does
not track: its Referenced stays 0.

Method per sample: write "1" to /proc/PID/clear_refs (clear accessed bits), then
write "4" (clear soft-dirty; this kernel has no CONFIG_MEM_SOFT_DIRTY, so the only
effect is the flush_tlb_mm() the kernel does for it: the "1" path does NOT flush the
TLB, and on this PVM guest (shadow paging) a process that does not context-switch
keeps stale translations, so its accesses after a bare "1" are mostly not recorded).
Then run exactly K transactions on the backend and sum "Referenced:" of
/proc/PID/smaps per mapping class (kB / 4 = 4 kB pages).
"""
import argparse, json, os, random, re, statistics
import psycopg2

NACC, NBR, NTEL = 800000, 8, 80   # pgbench scale 8

HDR = re.compile(r'^([0-9a-f]+)-([0-9a-f]+) (\S{4}) \S+ \S+ \d+\s*(.*)$')
CLASSES = ['shm_main', 'shm_other', 'pg_text', 'lib_text', 'file_data', 'anon', 'special']


def classify(size, perms, path, shm_min):
    if perms[3] == 's':
        return 'shm_main' if size >= shm_min else 'shm_other'
    if path.startswith('['):
        if path in ('[heap]', '[stack]') or path.startswith('[anon') or path.startswith('[stack'):
            return 'anon'
        return 'special'          # [vdso] [vvar] [vsyscall] ...
    if path == '':
        return 'anon'
    if 'x' in perms:
        return 'pg_text' if os.path.basename(path.split(' ')[0]) == 'postgres' else 'lib_text'
    return 'file_data'


def read_smaps(pid, shm_min):
    """returns (per-class referenced kB, per-class rss kB, list of mappings)"""
    ref = dict.fromkeys(CLASSES, 0)
    rss = dict.fromkeys(CLASSES, 0)
    maps = []
    cur = None
    with open(f'/proc/{pid}/smaps') as f:
        for line in f:
            m = HDR.match(line)
            if m:
                a, b = int(m.group(1), 16), int(m.group(2), 16)
                cur = dict(start=a, end=b, perms=m.group(3), path=m.group(4).strip(),
                           cls=classify(b - a, m.group(3), m.group(4).strip(), shm_min))
                maps.append(cur)
                continue
            k, _, v = line.partition(':')
            if k in ('Referenced', 'Rss', 'KernelPageSize', 'Private_Hugetlb', 'Shared_Hugetlb'):
                cur[k] = int(v.split()[0])
                if k == 'Referenced':
                    ref[cur['cls']] += cur[k]
                elif k == 'Rss':
                    rss[cur['cls']] += cur[k]
    return ref, rss, maps


def clear_refs(pid, flush=True):
    with open(f'/proc/{pid}/clear_refs', 'w') as f:
        f.write('1')
    if flush:
        with open(f'/proc/{pid}/clear_refs', 'w') as f:
            f.write('4')


def tx_select(cur, rnd):
    aid = rnd.randint(1, NACC)
    cur.execute(f'SELECT abalance FROM pgbench_accounts WHERE aid = {aid};')
    cur.fetchall()


def tx_tpcb(cur, rnd):
    aid = rnd.randint(1, NACC); bid = rnd.randint(1, NBR)
    tid = rnd.randint(1, NTEL); delta = rnd.randint(-5000, 5000)
    cur.execute('BEGIN;')
    cur.execute(f'UPDATE pgbench_accounts SET abalance = abalance + {delta} WHERE aid = {aid};')
    cur.execute(f'SELECT abalance FROM pgbench_accounts WHERE aid = {aid};')
    cur.fetchall()
    cur.execute(f'UPDATE pgbench_tellers SET tbalance = tbalance + {delta} WHERE tid = {tid};')
    cur.execute(f'UPDATE pgbench_branches SET bbalance = bbalance + {delta} WHERE bid = {bid};')
    cur.execute('INSERT INTO pgbench_history (tid, bid, aid, delta, mtime) '
                f'VALUES ({tid}, {bid}, {aid}, {delta}, CURRENT_TIMESTAMP);')
    cur.execute('END;')


TX = {'select-only': tx_select, 'tpcb-like': tx_tpcb}


def fit(ks, ys):
    n = len(ks); mx = sum(ks) / n; my = sum(ys) / n
    sxx = sum((k - mx) ** 2 for k in ks)
    slope = sum((k - mx) * (y - my) for k, y in zip(ks, ys)) / sxx
    return my - slope * mx, slope


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--workloads', default='select-only,tpcb-like')
    ap.add_argument('--ks', default='0,1,2,4,8,16,64,256')
    ap.add_argument('--reps', type=int, default=5)
    ap.add_argument('--warmup', type=int, default=2000)
    ap.add_argument('--no-flush', action='store_true', help='clear_refs "1" only (no TLB flush)')
    ap.add_argument('--shm-min-mb', type=int, default=512, help='size threshold of main shm mapping')
    ap.add_argument('--seed', type=int, default=1)
    ap.add_argument('--json', default=None)
    ap.add_argument('--label', default='')
    a = ap.parse_args()
    ks = [int(x) for x in a.ks.split(',')]
    shm_min = a.shm_min_mb << 20
    rnd = random.Random(a.seed)
    results = {}
    for wl in a.workloads.split(','):
        tx = TX[wl]
        conn = psycopg2.connect(dbname='bench', user='postgres', host='/var/run/postgresql')
        conn.autocommit = True   # simple protocol; BEGIN/END sent explicitly like pgbench
        cur = conn.cursor()
        cur.execute('SET synchronous_commit = off;')
        cur.execute('SELECT pg_backend_pid();')
        pid = cur.fetchone()[0]
        for _ in range(a.warmup):
            tx(cur, rnd)
        ref, rss, maps = read_smaps(pid, shm_min)
        print(f'\n== {wl} {a.label} backend pid {pid}; flush={not a.no_flush}')
        for mp in maps:
            if mp['cls'] in ('shm_main', 'shm_other'):
                print(f"   {mp['cls']}: {mp['start']:x}-{mp['end']:x} {mp['perms']} "
                      f"{(mp['end']-mp['start'])/2**20:.1f} MiB '{mp['path']}' "
                      f"KernelPageSize={mp.get('KernelPageSize')}kB Rss={mp.get('Rss')}kB "
                      f"Shared_Hugetlb={mp.get('Shared_Hugetlb')}kB Referenced={mp.get('Referenced')}kB")
        print('   Rss kB per class after warm-up:', rss)
        samples = {k: [] for k in ks}
        for rep in range(a.reps):
            for k in ks:
                clear_refs(pid, flush=not a.no_flush)
                for _ in range(k):
                    tx(cur, rnd)
                ref, rss, maps = read_smaps(pid, shm_min)
                samples[k].append({'ref': {c: ref[c] // 4 for c in CLASSES}})
        conn.close()
        print(f"   {'K':>4} | " + ' | '.join(f'{c:>19}' for c in CLASSES))
        for k in ks:
            cells = []
            for c in CLASSES:
                v = [s['ref'][c] for s in samples[k]]
                cells.append(f'{statistics.median(v):6.0f} ({min(v)}-{max(v)})'.rjust(19))
            print(f'   {k:>4} | ' + ' | '.join(cells))
        big = [k for k in ks if k >= 4]
        if len(big) >= 2:
            for c in ('shm_main', 'pg_text', 'lib_text', 'file_data', 'anon'):
                xs, ys = [], []
                for k in big:
                    for s in samples[k]:
                        xs.append(k); ys.append(s['ref'][c])
                h, sl = fit(xs, ys)
                print(f'   fit K>=4 {c:>9}: pages = {h:7.1f} + {sl:6.2f} * K')
        results[wl] = {str(k): v for k, v in samples.items()}
    if a.json:
        with open(a.json, 'w') as f:
            json.dump(results, f)


if __name__ == '__main__':
    main()
