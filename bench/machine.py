"""The machine a figure was measured on: cores, CPU, BLAS, versions, load."""
from __future__ import annotations

import os
import platform
import sys


def describe() -> dict:
    """{cores, cpu, blas, python, numpy, torch, load}; torch is "-" when not installed."""
    import numpy as np

    blas = np.show_config(mode="dicts")["Build Dependencies"]["blas"]
    try:
        import torch
        torch_version = f"{torch.__version__} ({torch.get_num_threads()} threads)"
    except ImportError:
        torch_version = "-"
    return {
        "cores": os.cpu_count(),
        "cpu": _cpu_model(),
        "blas": f"{blas.get('name')} {blas.get('version')}",
        "python": f"{platform.python_implementation()} {sys.version.split()[0]}",
        "numpy": np.__version__,
        "torch": torch_version,
        "load": " ".join(f"{x:.1f}" for x in os.getloadavg()),
    }


def _cpu_model() -> str:
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "?"
