#!/usr/bin/env python3
"""Plays afl-fuzz's side of the fork-server handshake against a fuzz target, with the timing that
once failed CI: the first input is written to stdin's file only after the target has said hello and
had time to read stdin. SharpFuzz copies stdin right after its hello; a target that ran on that copy
saw an empty first input, touched no instrumented code, and afl-fuzz stopped with "No
instrumentation detected". Passes when the first run and a second run both leave edges in the
coverage map.

    scripts/fuzz-handshake-check.py <instrumented bin folder> <target> <input file>
"""
import ctypes
import os
import subprocess
import sys
import tempfile
import time

MAP_SIZE = 65536
IPC_PRIVATE, IPC_CREAT, IPC_RMID = 0, 0o1000, 0


def main():
    if len(sys.argv) != 4:
        print(__doc__.strip().splitlines()[-1].strip(), file=sys.stderr)
        return 2
    bin_dir, target, input_path = sys.argv[1:]
    with open(input_path, "rb") as f:
        data = f.read()

    libc = ctypes.CDLL(None, use_errno=True)
    libc.shmat.restype = ctypes.c_void_p
    libc.shmat.argtypes = [ctypes.c_int, ctypes.c_void_p, ctypes.c_int]
    shm_id = libc.shmget(IPC_PRIVATE, MAP_SIZE, IPC_CREAT | 0o600)
    if shm_id < 0:
        print("shmget failed", file=sys.stderr)
        return 2
    base = libc.shmat(shm_id, None, 0)
    try:
        return run(bin_dir, target, data, shm_id, base)
    finally:
        libc.shmctl(shm_id, IPC_RMID, None)


def run(bin_dir, target, data, shm_id, base):
    ctl_read, ctl_write = os.pipe()  # afl-fuzz -> target (fd 198 in the target)
    st_read, st_write = os.pipe()  # target -> afl-fuzz (fd 199 in the target)
    cur_input = tempfile.NamedTemporaryFile(prefix="cur_input_")

    # SharpFuzz opens the pipes as fds 198 and 199, as afl-fuzz's fork server protocol has them.
    os.dup2(ctl_read, 198)
    os.dup2(st_write, 199)
    env = dict(os.environ, __AFL_SHM_ID=str(shm_id))
    stdin = open(cur_input.name, "rb")
    process = subprocess.Popen(["dotnet", os.path.join(bin_dir, "Fuzz.dll"), target], stdin=stdin,
                               env=env, pass_fds=(198, 199))
    for fd in (ctl_read, st_write, 198, 199):
        os.close(fd)

    def read_int():
        chunk = b""
        while len(chunk) < 4:
            more = os.read(st_read, 4 - len(chunk))
            if not more:
                raise RuntimeError("the target closed the status pipe (exit code %s)" % process.poll())
            chunk += more
        return int.from_bytes(chunk, "little")

    def run_once():
        ctypes.memset(base, 0, MAP_SIZE)
        # afl-fuzz's order: rewrite the file in place, truncate, rewind (the offset is shared with
        # the target's stdin), then say go.
        fd = os.open(cur_input.name, os.O_WRONLY)
        os.write(fd, data)
        os.ftruncate(fd, len(data))
        os.close(fd)
        os.lseek(stdin.fileno(), 0, os.SEEK_SET)
        os.write(ctl_write, (0).to_bytes(4, "little"))
        read_int()  # the pid
        status = read_int()
        edges = sum(1 for b in ctypes.string_at(base, MAP_SIZE) if b)
        return status, edges

    try:
        read_int()  # hello
        # The window that failed: the target copies stdin (still empty) and runs its warm-up call
        # before afl-fuzz writes the first input.
        time.sleep(3)
        results = [run_once(), run_once()]
    finally:
        process.kill()
        process.wait()
    print("%s handshake with a late first input: map entries set by run 1: %d, run 2: %d (status %d, %d)"
          % (target, results[0][1], results[1][1], results[0][0], results[1][0]))
    if any(edges == 0 for _, edges in results):
        print("%s: a run left the coverage map empty (afl-fuzz: No instrumentation detected)" % target, file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
