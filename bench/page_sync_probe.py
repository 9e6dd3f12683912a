"""What the store's high-water mark costs a commit group: one 4 KiB pwrite
into a preallocated two-slot file, then fdatasync, as HighWaterMark::Advance
does, timed N times in DIRECTORY (the disk a store would live on).

usage: python page_sync_probe.py DIRECTORY [N]

Prints the median and 90th percentile wall time. Nothing here asserts.
"""
import os
import statistics
import sys
import time

directory = sys.argv[1]
rounds = int(sys.argv[2]) if len(sys.argv) > 2 else 2000
path = os.path.join(directory, "page-sync-probe")
fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
try:
    os.pwrite(fd, b"\0" * 8192, 0)
    os.fsync(fd)
    times = []
    for i in range(rounds):
        start = time.perf_counter()
        os.pwrite(fd, i.to_bytes(8, "big") * 512, (i % 2) * 4096)
        os.fdatasync(fd)
        times.append(time.perf_counter() - start)
finally:
    os.close(fd)
    os.remove(path)
times.sort()
print("4 KiB pwrite + fdatasync, %d rounds: median %.1f us, p90 %.1f us"
      % (rounds, statistics.median(times) * 1e6, times[int(rounds * 0.9)] * 1e6))
