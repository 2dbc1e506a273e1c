"""Running many jobs at once: `fetch` on worker threads (the HTTP), `finish` on the calling thread
(the mapping, so it runs inside the caller's transaction, if any, and Objects are made there), one
result per job in the jobs' order, an exception as a job's result rather than raised, and progress
after each job. Nothing here knows HTTP or the graph."""
from __future__ import annotations

import queue
import threading
from typing import Callable, List, Optional, Tuple, TypeVar, Union

from .errors import MisuseError

Fetched = TypeVar("Fetched")
Result = TypeVar("Result")
Progress = Callable[[int, int], None]


def run(count: int, fetch: Callable[[int], Fetched], finish: Callable[[int, Fetched], Result], *,
        max_concurrent: int, progress: Optional[Progress] = None,
        abort: Callable[[], None] = lambda: None) -> List[Union[Result, Exception]]:
    """Jobs 0…count-1: at most `max_concurrent` `fetch(i)` run at once, in the order of the jobs;
    each `finish(i, fetched)` runs on this thread as its fetch ends; `progress(done, count)` follows
    each, `done` going 1, 2, … count. An exception of fetch or finish is the job's result. If
    progress raises (or this thread is interrupted), jobs not started are dropped, `abort()` is
    called (to stop those running), the workers are waited for and the exception propagates."""
    if not isinstance(max_concurrent, int) or max_concurrent < 1:
        raise MisuseError(f"max_concurrent must be a whole number of 1 or more, not {max_concurrent!r}")
    results: List[Union[Result, Exception]] = [MisuseError("not run")] * count
    ended: "queue.Queue[Tuple[int, object, Optional[BaseException]]]" = queue.Queue()
    jobs = iter(range(count))
    jobs_lock = threading.Lock()
    stopping = threading.Event()

    def work() -> None:
        while not stopping.is_set():
            with jobs_lock:
                index = next(jobs, None)
            if index is None:
                return
            try:
                ended.put((index, fetch(index), None))
            except BaseException as error:  # delivered to the calling thread, which decides
                ended.put((index, None, error))

    workers = [threading.Thread(target=work, name=f"mapping-batch-{n}", daemon=True)
               for n in range(min(max_concurrent, count))]
    for worker in workers:
        worker.start()
    try:
        for done in range(1, count + 1):
            index, fetched, error = ended.get()
            if error is not None and not isinstance(error, Exception):
                raise error  # KeyboardInterrupt, SystemExit in a worker: the batch stops
            if error is None:
                try:
                    results[index] = finish(index, fetched)  # type: ignore[arg-type]
                except Exception as failure:
                    results[index] = failure
            else:
                results[index] = error
            if progress is not None:
                progress(done, count)
    except BaseException:
        stopping.set()  # jobs not started are not started
        abort()
        raise
    finally:
        for worker in workers:
            worker.join()
    return results
