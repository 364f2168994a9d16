"""Lazy, optional compilation of the online algorithms' inner loops with numba.

The perceptrons, LMS, per-example SGD and dual coordinate descent are *online*: each step uses the
weights left by the previous one, so they cannot be vectorized over examples without changing the
algorithm. Their loops are written once, in plain Python over scalars and arrays (the subset numba
compiles), and decorated with :func:`jit`:

* nothing is imported or compiled when replearn is imported -- ``numba`` is imported and the
  function compiled (``numba.njit(cache=True)``, so later processes load the machine code from
  ``__pycache__``) on the first *call*;
* without numba (not installed, or ``REPLEARN_DISABLE_JIT=1`` in the environment) the same Python
  function runs: slower, same results;
* ``kernel.py_func`` is always the Python function, which the tests run against the compiled one;
* a kernel may call other :func:`jit` functions of its module (helpers): when it is compiled, the
  helpers it names are compiled first and the kernel sees their compiled versions (without numba,
  it calls their Python functions).

Compiled and Python results agree to rounding (~1e-15 relative): a compiled dot product sums in
order, numpy's BLAS in blocks.
"""

from __future__ import annotations

import functools
import os
import threading
import types
from collections.abc import Callable

__all__ = ["jit", "jit_available"]

_LOCK = threading.RLock()  # re-entrant: compiling a kernel compiles the helpers it calls


def _disabled() -> bool:
    return os.environ.get("REPLEARN_DISABLE_JIT", "").strip().lower() not in ("", "0", "false", "no")


@functools.cache
def _numba():
    """The numba module, or None when it is unavailable or disabled (looked up once)."""
    if _disabled():
        return None
    try:
        import numba
    except ImportError:
        return None
    return numba


def jit_available() -> bool:
    """Whether :func:`jit` kernels run compiled in this process (imports numba if needed)."""
    return _numba() is not None


class LazyKernel:
    """A function compiled by ``numba.njit`` on its first call (the Python function without numba)."""

    def __init__(self, fn: Callable, options: dict):
        functools.update_wrapper(self, fn)
        self.py_func = fn
        self._options = options
        self._impl: Callable | None = None

    def _compile(self) -> Callable:
        with _LOCK:
            if self._impl is None:
                numba = _numba()
                if numba is None:
                    self._impl = self.py_func
                else:
                    self._impl = numba.njit(cache=True, **self._options)(_with_compiled_helpers(self.py_func))
        return self._impl

    @property
    def compiled(self) -> bool:
        """Whether calls run machine code (compiles on first use)."""
        return self._compile() is not self.py_func

    def __call__(self, *args):
        impl = self._impl
        if impl is None:
            impl = self._compile()
        return impl(*args)


def _with_compiled_helpers(fn: Callable) -> Callable:
    """``fn``, or a copy of it whose globals name the compiled versions of the :class:`LazyKernel` helpers it calls."""
    names = fn.__code__.co_names
    helpers = {name: value for name in names if isinstance(value := fn.__globals__.get(name), LazyKernel)}
    if not helpers:
        return fn
    namespace = dict(fn.__globals__)
    namespace.update({name: helper._compile() for name, helper in helpers.items()})
    copy = types.FunctionType(fn.__code__, namespace, fn.__name__, fn.__defaults__, fn.__closure__)
    copy.__qualname__, copy.__module__, copy.__doc__ = fn.__qualname__, fn.__module__, fn.__doc__
    return copy


def jit(fn: Callable | None = None, **options):
    """Decorator: compile ``fn`` lazily with ``numba.njit(cache=True, **options)``; see the module docstring."""
    if fn is None:
        return lambda f: LazyKernel(f, options)
    return LazyKernel(fn, options)
