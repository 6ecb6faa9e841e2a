"""Imports every ``commands_*`` module so their commands register on :data:`eval_app`."""

from __future__ import annotations

import importlib
import pkgutil

from . import __path__ as _pkg_path

for _m in sorted(m.name for m in pkgutil.iter_modules(_pkg_path) if m.name.startswith("commands_")):
    importlib.import_module(f"{__package__}.{_m}")
