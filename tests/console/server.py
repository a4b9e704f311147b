"""Starts `denpex serve` on a free loopback port for a test, and stops it."""
import os
import re
import subprocess
import time


class Server:
    def __init__(self, *args):
        builddir = os.environ.get("top_builddir", ".")
        srcdir = os.environ.get("top_srcdir", ".")
        self.stderr_path = os.path.join(builddir, "tests", "console-serve-%d.log" % os.getpid())
        self.err = open(self.stderr_path, "w+b")
        cmd = [os.path.join(builddir, "denpex"), "serve", "--listen", "127.0.0.1:0",
               "--conf", os.path.join(srcdir, "conf")] + list(args)
        self.proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=self.err)
        deadline = time.time() + 20
        self.port = None
        while time.time() < deadline and self.port is None:
            if self.proc.poll() is not None:
                raise RuntimeError("denpex serve exited: " + self.log())
            m = re.search(r"listening on http://127\.0\.0\.1:(\d+)/", self.log())
            if m:
                self.port = int(m.group(1))
            else:
                time.sleep(0.05)
        if self.port is None:
            self.stop()
            raise RuntimeError("denpex serve did not start: " + self.log())
        self.url = "http://127.0.0.1:%d" % self.port

    def log(self):
        with open(self.stderr_path, "rb") as f:
            return f.read().decode("utf-8", "replace")

    def alive(self):
        return self.proc.poll() is None

    def rss_peak_kib(self):
        with open("/proc/%d/status" % self.proc.pid) as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1])
        return -1

    def stop(self):
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.err.close()
        rc = self.proc.returncode
        os.unlink(self.stderr_path)
        return rc
