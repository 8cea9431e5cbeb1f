"""Dependency aliases for the routers."""
from __future__ import annotations

from typing import Annotated

from fastapi import Depends

from server.settings import Settings, get_settings

SettingsDep = Annotated[Settings, Depends(get_settings)]
