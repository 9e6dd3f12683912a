"""A throwaway PostgreSQL server for a benchmark: initdb into a temp dir,
pg_ctl start on a free loopback port (trust auth, user "bench"; as user
nobody when run as root), and stopped with its directory removed on close.
Debian's postgresql package (installed by scripts/setup.sh) provides the
binaries; MORAINE_BENCH_PG_BIN overrides where they are."""

import glob
import os
import shutil
import socket
import subprocess
import tempfile


def _bin_dir():
    if os.environ.get("MORAINE_BENCH_PG_BIN"):
        return os.environ["MORAINE_BENCH_PG_BIN"]
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"),
                   key=lambda p: int(p.split("/")[4]))
    if not found:
        raise RuntimeError("no PostgreSQL server binaries (Debian's postgresql package)")
    return os.path.dirname(found[-1])


def _free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class PostgresServer:
    def __init__(self):
        self.bin = _bin_dir()
        self.dir = tempfile.mkdtemp(prefix="moraine-bench-pg-")
        self.port = _free_port()
        self.as_user = ["runuser", "-u", "nobody", "--"] if os.geteuid() == 0 else []
        if os.geteuid() == 0:
            shutil.chown(self.dir, "nobody")
        self._run([f"{self.bin}/initdb", "-D", f"{self.dir}/data", "-U", "bench",
                   "--auth=trust", "-E", "UTF8"], "initdb")
        self._run([f"{self.bin}/pg_ctl", "-D", f"{self.dir}/data", "-l", f"{self.dir}/server.log",
                   "-w", "-o", f"-p {self.port} -k {self.dir} -c listen_addresses=127.0.0.1 "
                   "-c max_connections=200", "start"], "pg_ctl start")
        self.databases = 0

    def _run(self, argv, what):
        done = subprocess.run(self.as_user + argv, capture_output=True, text=True, timeout=120)
        if done.returncode != 0:
            raise RuntimeError(f"{what} failed: {done.stdout}{done.stderr}")

    def create_database(self):
        """A new database; returns its libpq connection string."""
        self.databases += 1
        name = f"lake{self.databases}"
        self._run([f"{self.bin}/createdb", "-h", "127.0.0.1", "-p", str(self.port), "-U", "bench",
                   name], "createdb")
        return f"dbname={name} host=127.0.0.1 port={self.port} user=bench"

    def server_cpu_seconds(self):
        """User plus system CPU of every server process so far (the postmaster's
        children that ended are counted in its cumulative times)."""
        pid_file = f"{self.dir}/data/postmaster.pid"
        with open(pid_file) as f:
            postmaster = int(f.readline())
        tick = os.sysconf("SC_CLK_TCK")
        total = 0
        for stat in glob.glob("/proc/[0-9]*/stat"):
            try:
                with open(stat) as f:
                    fields = f.read().rsplit(")", 1)[1].split()
            except OSError:
                continue
            pid = int(stat.split("/")[2])
            ppid = int(fields[1])
            if pid == postmaster or ppid == postmaster:
                # utime, stime, cutime, cstime
                total += sum(int(x) for x in fields[11:15])
        return total / tick

    def close(self):
        subprocess.run(self.as_user + [f"{self.bin}/pg_ctl", "-D", f"{self.dir}/data", "-m",
                                       "immediate", "stop"], capture_output=True, timeout=60)
        shutil.rmtree(self.dir, ignore_errors=True)
