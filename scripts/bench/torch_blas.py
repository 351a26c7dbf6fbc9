"""What BLAS a PyTorch baseline runs on, and its thread count held to the benchmark's (issue 34).

Debian's PyTorch is built with BLAS_INFO=generic: it calls whatever libblas.so.3 the alternatives
system points at (the reference BLAS, 2.3 GFLOP/s on a 64x1024 by 1024x1024 matmul at 1 thread, or
OpenBLAS, 15-55). torch.set_num_threads sets OpenMP's threads, not OpenBLAS's pthreads: those are
limited here with threadpoolctl, so that "1 thread" means one thread in every library. The
benchmark scripts run PyTorch with OPENBLAS_CORETYPE and OPENBLAS_L2_SIZE unset (set on some
machines for old OpenBLAS builds; they make a current OpenBLAS pick slower kernels).
"""
import os
import re


def limit_threads(torch, threads):
    """torch.set_num_threads(threads) and every BLAS threadpool to `threads`; returns the
    threadpoolctl limiter (keep it alive), or None without threadpoolctl."""
    torch.set_num_threads(threads)
    try:
        from threadpoolctl import threadpool_limits
    except ImportError:
        return None
    return threadpool_limits(limits=threads, user_api="blas")


def blas_info(torch):
    """A dict: the BLAS PyTorch was built against (torch.__config__), the one actually loaded and its
    threads (threadpoolctl), PyTorch's threads, and the OpenBLAS variables in the environment."""
    built = re.search(r"BLAS_INFO=([^,\s]+)", torch.__config__.show())
    info = {"torch_threads": torch.get_num_threads(), "blas_built": built.group(1) if built else "unknown",
            "blas": "unknown (python3-threadpoolctl missing)", "blas_threads": None,
            "openblas_env": {k: os.environ[k] for k in ("OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE") if k in os.environ}}
    try:
        from threadpoolctl import threadpool_info
    except ImportError:
        return info
    pools = [p for p in threadpool_info() if p.get("user_api") == "blas"]
    if pools:
        p = pools[0]
        arch = f", {p['architecture']}" if p.get("architecture") else ""
        info["blas"] = f"{p.get('internal_api')} {p.get('version') or ''}{arch} ({os.path.basename(p['filepath'])})"
        info["blas_threads"] = p.get("num_threads")
    else:
        info["blas"] = "none loaded (reference libblas or none)"
    return info


def blas_text(info):
    """One line for a table's caption."""
    return (f"PyTorch BLAS: {info.get('blas')}, {info.get('blas_threads')} BLAS threads, "
            f"{info.get('torch_threads')} PyTorch threads (built with BLAS_INFO={info.get('blas_built')})"
            + (f"; environment {info['openblas_env']}" if info.get("openblas_env") else ""))
