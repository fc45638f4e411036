"""Parameter sweeps from Python: the sweep file of ``hourglass sweep`` (or a
dict of its tables), every point run through an executor, one table back.

    table = hourglass.sweep("beverloo.toml", out="beverloo", workers=2)
    table = hourglass.sweep(spec, out="s", executor=client.get_executor())  # Dask

The executor is any object whose ``submit(fn, *args)`` returns a future with
``.result()``: ``concurrent.futures.ProcessPoolExecutor``, a Dask
``Client(...).get_executor()`` (a local or remote Dask cluster, Slurm through
dask-jobqueue) or submitit's executors. Each point runs the Rust core in the
worker's own process (:func:`run_point`), writing its result directory under
``out/runs/<id>/``, so workers on other machines need ``out`` on a shared
file system. docs/sweeps.md has the file format and the cluster recipes.
"""

import csv as _csv
import multiprocessing as _mp
import os as _os
from concurrent.futures import ProcessPoolExecutor as _Pool

import numpy as _np

from . import _core


def run_point(task):
    """Run one point, ``(id, scene TOML, origin)`` as ``SweepPlan.pending``
    gives it, in this process; ``(True, summary.json text)`` or ``(False,
    one-line error)``. A failed run is an outcome, not an exception, so one
    bad point never stops a sweep."""
    _, scene, origin = task
    try:
        return True, _core.run_scene(scene, origin)
    except _core.HourglassError as e:
        return False, str(e)
    except Exception as e:  # noqa: BLE001 - anything a worker raises is the point's outcome
        return False, f"{type(e).__name__}: {e}".replace("\n", " ")


def _limit_threads(threads):
    # Before the first run in this worker builds its thread pool.
    _os.environ.setdefault("RAYON_NUM_THREADS", str(threads))


def sweep(spec, out="sweep", executor=None, workers=None, progress=False):
    """Run every point of ``spec`` (a sweep file's path, or a dict of its
    tables: ``{"version": 1, "grid": {"walls.hourglass.neck": [5, 7]}, ...}``)
    into the sweep directory ``out`` and return its table (``results.csv``):
    a pandas DataFrame when pandas is installed, else a dict of numpy arrays
    (one per column; ``id``, ``status``, ``backend``, ``solver``, ``adapter``
    and ``error`` as strings, the rest as floats with NaN for a run that did
    not finish).

    Points finished in ``out`` by an earlier sweep of the same spec are
    skipped; failed and interrupted ones run again. A run that fails is a row
    with status ``failed`` and its one-line error; the sweep goes on. A bad
    spec (unknown key, a value the scene refuses, an empty grid, duplicate
    points) or an ``out`` that is not this sweep's directory raises
    :class:`HourglassError` before any run starts.

    ``executor``: see the module's doc; default, ``workers`` local processes
    (default: the cores), each run's threads the cores shared among them.
    ``progress``: print a line per finished point.
    """
    plan = _core.SweepPlan(spec, _os.fspath(out))
    tasks = plan.pending()
    own = executor is None
    if own and tasks:
        cores = _os.cpu_count() or 1
        workers = int(workers or cores)
        if workers < 1:
            raise _core.HourglassError(f"python: field `workers`: must be 1 or more, got {workers}")
        executor = _Pool(
            max_workers=min(workers, len(tasks)),
            mp_context=_mp.get_context("spawn"),
            initializer=_limit_threads,
            initargs=(max(1, cores // workers),),
        )
    try:
        futures = [(t[0], executor.submit(run_point, t)) for t in tasks]
        for k, (pid, f) in enumerate(futures):
            try:
                ok, text = f.result()
            except Exception as e:  # noqa: BLE001 - a worker that died is the point's outcome
                ok, text = False, f"the worker failed: {type(e).__name__}: {e}"
            plan.record(pid, ok, text)
            if progress:
                print(f"sweep: point {pid} {'done' if ok else 'failed: ' + text} ({k + 1}/{len(futures)})")
    finally:
        if own and tasks:
            executor.shutdown()
    return read_table(plan.table)


_TEXT = {"id", "status", "backend", "solver", "adapter", "error"}


def read_table(path):
    """A sweep's ``results.csv`` (``hourglass.read_sweep``) as :func:`sweep` returns it."""
    with open(path, newline="") as f:
        rows = list(_csv.reader(f))
    header, rows = rows[0], rows[1:]
    columns = {}
    for j, name in enumerate(header):
        cells = [r[j] for r in rows]
        if name not in _TEXT:
            try:
                columns[name] = _np.array([float(c) if c != "" else _np.nan for c in cells])
                continue
            except ValueError:
                pass
        columns[name] = _np.array(cells, dtype=object)
    try:
        import pandas
    except ImportError:
        return columns
    return pandas.DataFrame(columns)
