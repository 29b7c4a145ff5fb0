"""Local workers take a run's pieces from one shared counter under an flock: it keeps
other workers out while held, and a worker that dies holding it (the OOM killer's
SIGKILL) must not stop the others."""

import fcntl
import os
import signal
import threading

import multiprocess
import pytest

from arena.league.executors import local


@pytest.mark.parametrize("inherited", [False, True], ids=["path", "inherited descriptor"])
def test_the_pieces_lock_keeps_others_out_and_dies_with_its_holder(tmp_path, inherited):
    # inherited: as a run does it, the lock file already unlinked and each worker opening
    # its own description of it through /proc/self/fd (an flock excludes descriptions)
    lock = tmp_path / "pieces.lock"
    lock.touch()
    path = str(lock)
    if inherited:
        fd = os.open(lock, os.O_RDWR)
        lock.unlink()
        path = f"/proc/self/fd/{fd}"
    pieces = local._Pieces([["first"], ["second"]], multiprocess.Value("i", 0, lock=False), path)
    held_r, held_w = os.pipe()
    child = os.fork()
    if child == 0:                        # a worker, killed while it holds the lock
        try:
            with pieces.locked():
                os.write(held_w, b"x")
                signal.pause()
        finally:
            os._exit(1)
    os.close(held_w)
    assert os.read(held_r, 1) == b"x"     # it holds the lock now
    other = os.open(path, os.O_RDWR)      # another worker's description
    with pytest.raises(BlockingIOError):
        fcntl.flock(other, fcntl.LOCK_EX | fcntl.LOCK_NB)
    os.close(other)
    os.kill(child, signal.SIGKILL)
    os.waitpid(child, 0)
    taken: list = []
    worker = threading.Thread(target=lambda: taken.extend([pieces.take(), pieces.take(), pieces.take()]),
                              daemon=True)
    worker.start()
    worker.join(timeout=60)               # a hang guard: with the lock left taken, this waits forever
    assert taken == [["first"], ["second"], None]
